import { useState } from 'react';
import { datasetWithLearnedModel } from '../learn/datasetLearnedModel';
import { taughtModel } from '../learn/learnerServices';
import { toApiJson } from '../export/apiJson';
import { FORMATS, writeFormat, type DatasetFormat } from '../../annotations/formats/registry';
import { cutOutPng } from '../../annotations/formats/pngMasks';
import { baseName } from '../../annotations/formats/imported';
import { isExported, withImageBytes } from '../../annotations/formats/dataset';
import { isAccepted, isProposal } from '../../annotations/review';
import { imageBlob, rgbaOf } from '../images/imageLibrary';
import { outlines } from '../studioServices';
import { liveSelection } from '../state/editActions';
import { useEdit } from '../state/editStore';
import { currentDocument, useStudio } from '../state/studioStore';
import { download, PopupMenu } from './PopupMenu';

/** How many of an export's notes the menu shows. */
const NOTES_SHOWN = 5;

/** Datasets out, whole session, one entry per registered format (export/formats). */
export function ExportMenu() {
  const [includeHidden, setIncludeHidden] = useState(false);
  const [includeProposals, setIncludeProposals] = useState(false);
  const exportOptions = { includeHidden, includeProposals };
  const [withImages, setWithImages] = useState(false);
  const [options, setOptions] = useState<Record<string, boolean>>(() =>
    Object.fromEntries(FORMATS.flatMap((f) => f.options ?? []).map((o) => [o.id, o.defaultValue])),
  );
  const [note, setNote] = useState<string | null>(null);
  const doc = useStudio((s) => s.history.present);
  const image = doc.images.find((i) => i.id === doc.activeImageId);
  // The menu stays mounted while closed: it must re-render when the selection changes, or the
  // cut-out entry keeps the enabled state of the selection it last saw.
  useEdit((s) => s.selection);

  const exportFormat = async (format: DatasetFormat) => {
    // The outlines follow the Detail slider in the worker: a file waits for them, so it matches the screen.
    await outlines.settled();
    let dataset = datasetWithLearnedModel(currentDocument(), exportOptions, taughtModel());
    if (format.requiresImages || (format.carriesImages && withImages)) {
      const bytes = new Map(await Promise.all(dataset.images.map(async (e) => [e.image.id, new Uint8Array((await imageBlob(e.image.id)?.arrayBuffer()) ?? new ArrayBuffer(0))] as const)));
      dataset = withImageBytes(dataset, (i) => bytes.get(i.id));
    }
    const { file, notes } = await writeFormat(format, dataset, options);
    download(file.name, file.bytes as BlobPart, file.mime);
    // A long list (every object a mask format painted smaller ones over) stays in the zip's NOTES.md.
    const fileNotes = file.notes ?? [];
    const shown = fileNotes.length > NOTES_SHOWN ? [...fileNotes.slice(0, NOTES_SHOWN), `… and ${fileNotes.length - NOTES_SHOWN} more, all listed in NOTES.md in the zip`] : fileNotes;
    const outside = dataset.outsideImage.length ? [`Left out (no pixel inside the image): ${dataset.outsideImage.join(', ')}`] : [];
    const all = [...outside, ...notes, ...shown];
    setNote(all.length ? all.join('\n') : null);
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
    await outlines.settled();
    const objects = (currentDocument().objects[image.id] ?? []).filter((o) => isExported(o, exportOptions));
    download(`${baseName(image.name)}.maskwright.json`, JSON.stringify(toApiJson(objects), null, 2), 'application/json');
  };

  const all = doc.images.flatMap((i) => doc.objects[i.id] ?? []);
  const total = all.filter(isAccepted).length;
  const hidden = all.filter((o) => isAccepted(o) && !o.visible).length;
  const proposals = all.filter(isProposal).length;
  const exported = all.filter((o) => isExported(o, exportOptions)).length;
  const run = (action: () => unknown) => () => void action();

  return (
    <PopupMenu label="Export" dialogLabel="Export" disabled={!image} title={image ? 'Export annotations' : 'Open an image first'}>
      <p className="muted small">
        Whole session: {doc.images.length} image{doc.images.length === 1 ? '' : 's'}, {total} object{total === 1 ? '' : 's'}
        {hidden ? ` (${hidden} hidden)` : ''}
        {proposals ? ` · ${proposals} proposal${proposals === 1 ? '' : 's'} to review` : ''}
      </p>
      <label className="check">
        <input type="checkbox" checked={includeHidden} onChange={(e) => setIncludeHidden(e.target.checked)} /> Include hidden objects
      </label>
      <label className="check" title="Proposals (text prompts, find similar, segment everything) not yet accepted; COCO and Maskwright JSON mark them review_state “proposed”. Rejected ones are never exported.">
        <input type="checkbox" checked={includeProposals} onChange={(e) => setIncludeProposals(e.target.checked)} /> Include proposals not yet reviewed
      </label>
      {FORMATS.map((format) => (
        <div key={format.id} className="format-entry">
          <button type="button" disabled={exported === 0} title={format.summary} onClick={run(() => exportFormat(format))}>
            {format.label} (whole session)
          </button>
          {format.options?.map((o) => (
            <label key={o.id} className="check">
              <input type="checkbox" checked={!!options[o.id]} onChange={(e) => setOptions({ ...options, [o.id]: e.target.checked })} /> {o.label}
            </label>
          ))}
          {format.carriesImages && !format.requiresImages && (
            <label className="check">
              <input type="checkbox" checked={withImages} onChange={(e) => setWithImages(e.target.checked)} /> Include the images in the {format.label.replace(/ zip$/, '')} zip
            </label>
          )}
        </div>
      ))}
      <hr />
      <button type="button" disabled={!selectedObject()} title="Select an object first" onClick={run(exportCutOut)}>
        Cut-out of the selected object (PNG)
      </button>
      <button type="button" disabled={!image || !doc.objects[image.id]?.some((o) => isExported(o, exportOptions))} onClick={run(exportApiJson)}>
        API JSON (this image)
      </button>
      {note && (
        <p role="status" className="small" style={{ whiteSpace: 'pre-line' }}>
          {note}
        </p>
      )}
    </PopupMenu>
  );
}
