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

/** C0 controls XML 1.0 cannot hold at all, not even as a character reference (tab, LF and CR it can). */
const C0_NOT_IN_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g;
/** Noncharacters and lone surrogates, equally outside XML 1.0's Char production. */
const OTHER_NOT_IN_XML = /[\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Text or an attribute value as well-formed XML whatever it holds: markup characters as entities;
 * tab, LF and CR as references (so attribute normalisation keeps them); a C0 control XML forbids as
 * its visible picture (NUL as U+2400 "␀", from the Control Pictures block), so the name stays
 * recognisable instead of breaking the whole file.
 */
export function escapeXml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\t/g, '&#9;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;')
    .replace(C0_NOT_IN_XML, (c) => String.fromCharCode(0x2400 + c.charCodeAt(0)))
    .replace(OTHER_NOT_IN_XML, '\ufffd');
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
