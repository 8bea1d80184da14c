/**
 * JSON that keeps typed arrays (masks are Uint8Array, logits Float32Array): each is written as
 * `{"$typed": name, "base64": bytes}` and read back as the same kind of array. Used where a document
 * must become bytes (sealed local spaces) instead of going through IndexedDB's structured clone.
 */
const TYPED = { Uint8Array, Uint8ClampedArray, Float32Array, Int32Array, Uint16Array } as const;
type TypedName = keyof typeof TYPED;

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function typedName(value: unknown): TypedName | null {
  for (const name of Object.keys(TYPED) as TypedName[]) if (value instanceof TYPED[name]) return name;
  return null;
}

export function stringifyTyped(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key, plain: unknown) {
    // `plain` has been through toJSON already; the holder still has the original typed array.
    const original = key === '' ? value : this[key];
    const name = typedName(original);
    if (!name) return plain;
    const view = original as ArrayBufferView;
    return { $typed: name, base64: toBase64(new Uint8Array(view.buffer, view.byteOffset, view.byteLength)) };
  });
}

export function parseTyped<T>(text: string): T {
  return JSON.parse(text, (_key, value: unknown) => {
    if (value && typeof value === 'object' && '$typed' in value && 'base64' in value) {
      const { $typed, base64 } = value as { $typed: string; base64: string };
      const Kind = TYPED[$typed as TypedName];
      if (!Kind) throw new Error(`unknown typed array ${$typed}`);
      const bytes = fromBase64(base64);
      return new Kind(bytes.buffer, 0, bytes.byteLength / Kind.BYTES_PER_ELEMENT);
    }
    return value;
  }) as T;
}
