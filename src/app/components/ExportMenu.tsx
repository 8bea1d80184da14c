import { useCallback, useEffect, useRef, useState } from 'react';
import { useFocusTrap } from '../a11y/useFocusTrap';
import { toApiJson } from '../export/apiJson';
import { toCoco } from '../export/coco';
import { readDatasetFiles } from '../export/datasetReaders';
import { importAnnotations } from '../export/importAnnotations';
import { cutOutPng, pngMasksZip } from '../export/maskPng';
import { sessionDataset } from '../export/sessionDataset';
import { baseName, yoloZip } from '../export/yolo';
import { imageBlob, rgbaOf } from '../images/imageLibrary';
import { outlines } from '../studioServices';
import { liveSelection } from '../state/editActions';
import { currentDocument, newId, useStudio } from '../state/studioStore';
import { useDetail } from '../state/detailStore';

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

/** Datasets out (whole session) and back in (onto the open images, matched by file name). */
export function ExportMenu() {
  const [open, setOpen] = useState(false);
  const [includeHidden, setIncludeHidden] = useState(true);
  const [withImages, setWithImages] = useState(false);
  const [report, setReport] = useState<{ message: string; unmatched: readonly string[] } | null>(null);
  const ref = useRef<HTMLDivElement>(null);
  const popup = useRef<HTMLDivElement>(null);
  const closeMenu = useCallback(() => setOpen(false), []);
  // A small non-modal dialog: focus moves in, Tab and the arrow keys cycle inside, Esc closes and focus returns to Export.
  useFocusTrap(popup, closeMenu, { active: open, arrows: true });
  const doc = useStudio((s) => s.history.present);
  const image = doc.images.find((i) => i.id === doc.activeImageId);

  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent) => ref.current?.contains(e.target as Node) || setOpen(false);
    const escape = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false);
    window.addEventListener('mousedown', close);
    window.addEventListener('keydown', escape);
    return () => {
      window.removeEventListener('mousedown', close);
      window.removeEventListener('keydown', escape);
    };
  }, [open]);

  // The outlines follow the Detail slider in the worker: a file waits for them, so it matches the screen.
  const dataset = async () => {
    await outlines.settled();
    return sessionDataset(currentDocument(), { includeHidden });
  };
  const exportCoco = async () => {
    const { entries, categories } = await dataset();
    download('maskwright-session.coco.json', JSON.stringify(toCoco(entries, categories), null, 2), 'application/json');
  };
  const exportYolo = async () => {
    const { entries, categories } = await dataset();
    const withBytes = await Promise.all(entries.map(async (e) => ({ ...e, bytes: withImages ? new Uint8Array((await imageBlob(e.image.id)?.arrayBuffer()) ?? new ArrayBuffer(0)) : undefined })));
    download('maskwright-session.yolo.zip', yoloZip(withBytes, categories, withImages) as BlobPart, 'application/zip');
  };
  const exportPngMasks = async () => {
    const { entries, categories } = await dataset();
    download('maskwright-session.masks.zip', (await pngMasksZip(entries, categories)) as BlobPart, 'application/zip');
  };
  const selectedObject = () => {
    const [id] = liveSelection();
    return image && id ? currentDocument().objects[image.id]?.find((o) => o.id === id) : undefined;
  };
  const exportCutOut = async () => {
    const object = selectedObject();
    const rgba = image && rgbaOf(image.id);
    if (!object || !rgba || !image) return;
    const png = await cutOutPng(rgba, object);
    if (png) download(`${baseName(image.name)}.${object.label.replace(/[^\w-]+/g, '_')}.png`, png as BlobPart, 'image/png');
  };
  const exportApiJson = async () => {
    if (!image) return;
    const objects = ((await dataset()).entries.find((e) => e.image.id === image.id)?.objects ?? []);
    download(`${baseName(image.name)}.maskwright.json`, JSON.stringify(toApiJson(objects), null, 2), 'application/json');
  };
  const importFiles = async (files: File[]) => {
    try {
      const read = await readDatasetFiles(await Promise.all(files.map(async (f) => ({ name: f.name, bytes: new Uint8Array(await f.arrayBuffer()) }))));
      const result = importAnnotations(currentDocument(), read.annotations, () => newId('obj'), { tolerance: useDetail.getState().tolerance });
      if (result.added) useStudio.getState().apply(`import ${result.added} objects`, () => result.doc);
      setReport({ message: `${result.added} object${result.added === 1 ? '' : 's'} imported.`, unmatched: [...read.problems, ...result.unmatched] });
    } catch (error) {
      setReport({ message: `Import failed: ${error instanceof Error ? error.message : String(error)}`, unmatched: [] });
    }
  };

  const total = doc.images.reduce((n, i) => n + (doc.objects[i.id]?.length ?? 0), 0);
  const hidden = doc.images.reduce((n, i) => n + (doc.objects[i.id]?.filter((o) => !o.visible).length ?? 0), 0);
  const run = (action: () => unknown) => () => void action();

  return (
    <div className="menu" ref={ref}>
      <button type="button" aria-haspopup="dialog" aria-expanded={open} disabled={!image} title={image ? 'Export or import annotations' : 'Open an image first'} onClick={() => setOpen(!open)}>
        Export
      </button>
      {open && (
        <div ref={popup} className="menu-popup export-dialog" role="dialog" aria-label="Export and import">
          <p className="muted small">
            Whole session: {doc.images.length} image{doc.images.length === 1 ? '' : 's'}, {total} object{total === 1 ? '' : 's'}
            {hidden ? ` (${hidden} hidden)` : ''}
          </p>
          <label className="check">
            <input type="checkbox" checked={includeHidden} onChange={(e) => setIncludeHidden(e.target.checked)} /> Include hidden objects
          </label>
          <button type="button" disabled={total === 0} onClick={run(exportCoco)}>
            COCO JSON (whole session)
          </button>
          <button type="button" disabled={total === 0} onClick={run(exportYolo)}>
            YOLO segmentation zip (whole session)
          </button>
          <label className="check">
            <input type="checkbox" checked={withImages} onChange={(e) => setWithImages(e.target.checked)} /> Include the images in the YOLO zip
          </label>
          <button type="button" disabled={total === 0} onClick={run(exportPngMasks)}>
            PNG masks zip (whole session)
          </button>
          <button type="button" disabled={!selectedObject()} title="Select an object first" onClick={run(exportCutOut)}>
            Cut-out of the selected object (PNG)
          </button>
          <button type="button" disabled={!image || !(doc.objects[image.id]?.length)} onClick={run(exportApiJson)}>
            API JSON (this image)
          </button>
          <hr />
          <label className="button">
            Import annotations…
            <input
              type="file"
              className="visually-hidden"
              multiple
              accept=".json,.zip,.txt,.yaml,.yml"
              aria-label="Import annotations (COCO JSON, YOLO zip or data.yaml + labels)"
              onChange={(e) => {
                void importFiles(Array.from(e.target.files ?? []));
                e.target.value = '';
              }}
            />
          </label>
          {report && (
            <div role="status" data-testid="import-report">
              <p>{report.message}</p>
              {report.unmatched.length > 0 && (
                <>
                  <p>Not imported:</p>
                  <ul aria-label="Not imported">
                    {report.unmatched.map((u) => (
                      <li key={u}>{u}</li>
                    ))}
                  </ul>
                </>
              )}
            </div>
          )}
        </div>
      )}
    </div>
  );
}
