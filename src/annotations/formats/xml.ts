/**
 * Just enough XML for annotation files (Pascal VOC, CVAT): elements, attributes, text, comments,
 * CDATA, the five predefined entities and numeric references. No DOM, so Node and the browser read
 * them alike. Malformed input is an Error naming where it broke.
 */
export interface XmlElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: XmlElement[];
  /** The element's own text (children's text not included), entities decoded, trimmed. */
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, name: string) => {
    if (name[0] === '#') return String.fromCodePoint(name[1].toLowerCase() === 'x' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10));
    return ENTITIES[name] ?? whole;
  });
}

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

export function parseXml(source: string): XmlElement {
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  const tag = /<!--[\s\S]*?-->|<!\[CDATA\[([\s\S]*?)\]\]>|<\?[\s\S]*?\?>|<!DOCTYPE[^>]*>|<\/\s*([\w:.-]+)\s*>|<([\w:.-]+)((?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>|([^<]+)/gy;
  let match: RegExpExecArray | null;
  let at = 0;
  while (at < source.length) {
    tag.lastIndex = at;
    match = tag.exec(source);
    if (!match) throw new Error(`XML is malformed near character ${at}: ${source.slice(at, at + 30)}`);
    at = tag.lastIndex;
    const [, cdata, closing, opening, attributeText, selfClosing, text] = match;
    const top = stack[stack.length - 1];
    if (cdata !== undefined) {
      if (top) top.text += cdata;
    } else if (text !== undefined) {
      if (top) top.text += decodeEntities(text);
    } else if (closing) {
      if (!top || top.name !== closing) throw new Error(`XML closes <${closing}> where <${top?.name ?? 'nothing'}> is open`);
      top.text = top.text.trim();
      stack.pop();
    } else if (opening) {
      const attributes: Record<string, string> = {};
      for (const a of attributeText.matchAll(/([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) attributes[a[1]] = decodeEntities(a[2] ?? a[3]);
      const element: XmlElement = { name: opening, attributes, children: [], text: '' };
      if (top) top.children.push(element);
      else if (root) throw new Error('XML has more than one root element');
      else root = element;
      if (!selfClosing) stack.push(element);
    }
  }
  if (stack.length) throw new Error(`XML ends inside <${stack[stack.length - 1].name}>`);
  if (!root) throw new Error('XML has no element');
  return root;
}

export const childrenNamed = (element: XmlElement, name: string) => element.children.filter((c) => c.name === name);
export const childNamed = (element: XmlElement, name: string) => element.children.find((c) => c.name === name);
export const childText = (element: XmlElement, name: string) => childNamed(element, name)?.text;
