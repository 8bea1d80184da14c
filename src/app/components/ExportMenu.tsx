import { useEffect, useRef, useState } from 'react';
import { toApiJson } from '../export/apiJson';
import { toCoco } from '../export/coco';
import { toMaskPng } from '../export/maskPng';
import { toYoloSeg } from '../export/yolo';
import { tracedPolygons } from '../geometry/traced';
import type { SegObject } from '../state/model';
import { useStudio } from '../state/studioStore';
import { useUi } from '../state/uiStore';

function download(name: string, data: BlobPart, type: string) {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

const baseName = (name: string) => name.replace(/\.[^.]+$/, '') || 'image';

/** Exports the active image's objects, outlined at the current detail setting. */
export function ExportMenu() {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  const doc = useStudio((s) => s.history.present);
  const tolerance = useUi((s) => s.tolerance);
  const image = doc.images.find((i) => i.id === doc.activeImageId);
  const objects: SegObject[] = (image ? (doc.objects[image.id] ?? []) : []).map((o) => ({ ...o, polygons: tracedPolygons(o.mask, o.polygons, tolerance) }));
  const disabled = !image || objects.length === 0;

  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent) => ref.current?.contains(e.target as Node) || setOpen(false);
    window.addEventListener('mousedown', close);
    return () => window.removeEventListener('mousedown', close);
  }, [open]);

  if (!image) return <button type="button" disabled title="Open an image first">Export</button>;
  const name = baseName(image.name);
  const formats = [
    { label: 'COCO JSON (polygons)', run: () => download(`${name}.coco.json`, JSON.stringify(toCoco([{ image, objects }]), null, 2), 'application/json') },
    {
      label: 'COCO JSON, all images of the session',
      run: () => {
        const entries = doc.images.map((i) => ({ image: i, objects: (doc.objects[i.id] ?? []).map((o) => ({ ...o, polygons: tracedPolygons(o.mask, o.polygons, tolerance) })) }));
        download('maskwright-session.coco.json', JSON.stringify(toCoco(entries), null, 2), 'application/json');
      },
    },
    { label: 'API JSON (prompt_results)', run: () => download(`${name}.maskwright.json`, JSON.stringify(toApiJson(objects), null, 2), 'application/json') },
    {
      label: 'YOLO segmentation (.txt)',
      run: () => {
        const { labels, classes } = toYoloSeg(image, objects);
        download(`${name}.txt`, labels, 'text/plain');
        download(`${name}.classes.txt`, `${classes.join('\n')}\n`, 'text/plain');
      },
    },
    { label: 'PNG instance mask', run: async () => download(`${name}.mask.png`, (await toMaskPng(image, objects)) as BlobPart, 'image/png') },
  ];
  return (
    <div className="menu" ref={ref}>
      <button type="button" aria-haspopup="menu" aria-expanded={open} disabled={disabled} title={disabled ? 'Accept an object first' : 'Export this image’s objects'} onClick={() => setOpen(!open)}>
        Export
      </button>
      {open && (
        <div className="menu-popup" role="menu" aria-label="Export format">
          {formats.map((f) => (
            <button
              key={f.label}
              type="button"
              role="menuitem"
              onClick={() => {
                void f.run();
                setOpen(false);
              }}
            >
              {f.label}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
