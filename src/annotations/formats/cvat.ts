import type { PolygonWithHoles, Ring } from '../../engine/types';
import type { BoxGeometry } from '../annotation';
import { bridgeHoles } from '../polygon';
import { fileNameOf, mergeImported, textOf, type ImportedAnnotation, type ImportedDataset, type InputFile } from './imported';
import { classIdsNotKeptNotes } from './categories';
import type { Dataset } from './dataset';
import { childNamed, childrenNamed, childText, escapeXml, parseXml, type XmlElement } from './xml';
import type { DatasetFormat } from './format';

/**
 * CVAT for images 1.1 XML (docs.cvat.ai, "CVAT for images"): `<image>` elements with `<polygon
 * label points="x,y;x,y">`; the labels with their colours under `meta/task/labels`. A multi-part
 * object is several polygons sharing a `group_id` (CVAT's grouping); holes are keyhole cuts (CVAT
 * polygons have none). A box is a `<box xtl ytl xbr ybr>` and reads back as one; polylines and points
 * are listed as not imported.
 */
const round2 = (n: number) => Math.round(n * 100) / 100;
const points = (ring: Ring) => ring.map(([x, y]) => `${x},${y}`).join(';');

export function toCvat(dataset: Dataset): string {
  const lines = ['<?xml version="1.0" encoding="utf-8"?>', '<annotations>', '  <version>1.1</version>', '  <meta>', '    <task>', '      <name>Maskwright export</name>', '      <labels>'];
  for (const c of dataset.categories) lines.push(`        <label>`, `          <name>${escapeXml(c.name)}</name>`, `          <color>${escapeXml(c.color)}</color>`, `          <type>polygon</type>`, `          <attributes/>`, `        </label>`);
  lines.push('      </labels>', '    </task>', '  </meta>');
  let group = 0;
  dataset.images.forEach(({ image, objects }, index) => {
    lines.push(`  <image id="${index}" name="${escapeXml(fileNameOf(image.name))}" width="${image.width}" height="${image.height}">`);
    objects.forEach(({ kind, categoryId, geometry }, z) => {
      const label = escapeXml(dataset.categories.find((c) => c.id === categoryId)!.name);
      if (kind === 'box') {
        const [x, y, w, h] = geometry.bbox;
        lines.push(`    <box label="${label}" source="manual" occluded="0" xtl="${x}" ytl="${y}" xbr="${round2(x + w)}" ybr="${round2(y + h)}" z_order="${z}"/>`);
        return;
      }
      const groupAttribute = geometry.polygons.length > 1 ? ` group_id="${++group}"` : '';
      for (const p of geometry.polygons) lines.push(`    <polygon label="${label}" source="manual" occluded="0" points="${points(bridgeHoles(p))}" z_order="${z}"${groupAttribute}/>`);
    });
    lines.push('  </image>');
  });
  lines.push('</annotations>', '');
  return lines.join('\n');
}

function parsePoints(text: string): Ring {
  return text
    .split(';')
    .map((pair) => pair.split(',').map(Number) as [number, number])
    .filter((v) => v.length === 2 && v.every(Number.isFinite));
}

export function readCvat(xml: string): ImportedDataset {
  const root = parseXml(xml);
  if (root.name !== 'annotations') throw new Error('not a CVAT for images XML (root is not <annotations>)');
  const labels = childNamed(root, 'meta');
  const labelElements = labels ? findAll(labels, 'label') : [];
  const categories = labelElements.map((l) => ({ name: childText(l, 'name') ?? '', color: childText(l, 'color') || undefined })).filter((c) => c.name);
  const annotations: ImportedAnnotation[] = [];
  const problems: string[] = [];
  const images = childrenNamed(root, 'image');
  for (const image of images) {
    const fileName = fileNameOf(image.attributes.name ?? '');
    // Shapes in file order, a group at its first shape's place.
    const groups = new Map<string, { className: string; rings: Ring[]; box?: BoxGeometry }>();
    const skipped = new Map<string, number>();
    image.children.forEach((shape, i) => {
      if (shape.name === 'box') {
        const [xtl, ytl, xbr, ybr] = ['xtl', 'ytl', 'xbr', 'ybr'].map((k) => Number(shape.attributes[k]));
        if ([xtl, ytl, xbr, ybr].every(Number.isFinite) && xbr > xtl && ybr > ytl) groups.set(`box ${i}`, { className: shape.attributes.label || 'unlabelled', rings: [], box: [xtl, ytl, round2(xbr - xtl), round2(ybr - ytl)] });
        else problems.push(`${fileName}: box ${i + 1} has no area`);
        return;
      }
      if (shape.name !== 'polygon') {
        skipped.set(shape.name, (skipped.get(shape.name) ?? 0) + 1);
        return;
      }
      const className = shape.attributes.label || 'unlabelled';
      const ring = parsePoints(shape.attributes.points ?? '');
      if (ring.length < 3) {
        problems.push(`${fileName}: polygon ${i + 1} has fewer than 3 points`);
        return;
      }
      const key = shape.attributes.group_id && shape.attributes.group_id !== '0' ? `${className}\u0000${shape.attributes.group_id}` : `single ${i}`;
      const group = groups.get(key) ?? { className, rings: [] };
      group.rings.push(ring);
      groups.set(key, group);
    });
    for (const g of groups.values()) annotations.push({ fileName, className: g.className, ...(g.box ? { box: g.box } : { polygons: g.rings.map((outer): PolygonWithHoles => ({ outer, holes: [] })) }) });
    for (const [kind, n] of skipped) problems.push(`${fileName}: ${n} ${kind}${n === 1 ? '' : 's'} not imported (only polygons and boxes are read)`);
  }
  return { format: 'cvat', images: images.map((i) => ({ name: fileNameOf(i.attributes.name ?? ''), width: Number(i.attributes.width), height: Number(i.attributes.height) })), categories, annotations, problems };
}

function findAll(element: XmlElement, name: string): XmlElement[] {
  return element.children.flatMap((c) => (c.name === name ? [c] : findAll(c, name)));
}

const looksLikeCvat = (file: InputFile) => /\.xml$/i.test(file.name) && !/(^|\/)Annotations\//i.test(file.name) && /<annotations[\s>]/.test(textOf(file).slice(0, 2000));

export const cvatFormat: DatasetFormat = {
  id: 'cvat',
  holds: { mask: true, box: true, tag: false },
  label: 'CVAT for images 1.1 XML',
  summary: 'annotations.xml: polygons per image (parts grouped by group_id), boxes, labels with colours',
  async write(dataset) {
    return { name: 'annotations.xml', bytes: new TextEncoder().encode(toCvat(dataset)), mime: 'application/xml', notes: classIdsNotKeptNotes('CVAT for images 1.1 XML', dataset.categories) };
  },
  async read(files) {
    const found = files.filter(looksLikeCvat);
    if (found.length === 0) return undefined;
    return { dataset: mergeImported('cvat', found.map((f) => readCvat(textOf(f)))), consumed: found.map((f) => f.name) };
  },
};
