import { useState } from 'react';
import { importAnnotations } from '../export/importAnnotations';
import { readDatasetFiles } from '../../annotations/formats/readFiles';
import { restoreImportedModel } from '../learn/datasetLearnedModel';
import { adoptLearnedModel, sessionLearner } from '../learn/learnerServices';
import { openImageBlobs } from '../openImagesAction';
import { useDetail } from '../state/detailStore';
import { currentDocument, newId, useStudio } from '../state/studioStore';
import { PopupMenu } from './PopupMenu';

const MIME: Record<string, string> = { jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif', bmp: 'image/bmp' };

interface Report {
  readonly message: string;
  readonly notes: readonly string[];
  readonly unmatched: readonly string[];
}

/**
 * Datasets in, its own menu, usable before any image is open: the photos that come with the
 * annotations (in the zip, or picked beside the file) are opened first, then the annotations land
 * on the images of the same name. Importing the same file twice adds nothing the second time.
 */
export function ImportMenu() {
  const [report, setReport] = useState<Report | null>(null);
  const importFiles = async (files: File[]) => {
    try {
      const read = await readDatasetFiles(await Promise.all(files.map(async (f) => ({ name: f.name, bytes: new Uint8Array(await f.arrayBuffer()) }))));
      const open = new Set(currentDocument().images.map((i) => i.name.toLowerCase()));
      const toOpen = read.images.filter((f) => !open.has((f.name.split('/').pop() ?? f.name).toLowerCase()));
      if (toOpen.length) {
        await openImageBlobs(
          toOpen.map((f) => {
            const name = f.name.split('/').pop() ?? f.name;
            return new File([f.bytes as BlobPart], name, { type: MIME[name.split('.').pop()!.toLowerCase()] ?? 'application/octet-stream' });
          }),
        );
      }
      const before = currentDocument();
      const result = importAnnotations(before, read.dataset, () => newId('obj'), { tolerance: useDetail.getState().tolerance });
      if (result.added || result.classNotes.length) useStudio.getState().apply(`import ${result.added} objects`, () => result.doc);
      const parts = [`${result.added} object${result.added === 1 ? '' : 's'} imported.`];
      if (read.dataset.learnedModel) parts.push(await restoreImportedModel(read.dataset.learnedModel, before, result.doc, { taughtClasses: () => sessionLearner.taughtClasses(), adopt: adoptLearnedModel }));
      if (result.alreadyPresent) parts.push(`${result.alreadyPresent} already present, not added again.`);
      if (toOpen.length) parts.push(`${toOpen.length} image${toOpen.length === 1 ? '' : 's'} opened from the file.`);
      setReport({ message: parts.join(' '), notes: result.classNotes, unmatched: [...read.dataset.problems, ...result.unmatched] });
    } catch (error) {
      setReport({ message: `Import failed: ${error instanceof Error ? error.message : String(error)}`, notes: [], unmatched: [] });
    }
  };

  return (
    <PopupMenu label="Import" dialogLabel="Import" title="Import annotations (COCO, YOLO, PNG masks, Pascal VOC, LabelMe, CVAT, Maskwright)">
      <p className="muted small">Annotations land on the open images of the same file name; photos inside a zip are opened.</p>
      <label className="button">
        Import annotations…
        <input
          type="file"
          className="visually-hidden"
          multiple
          accept=".json,.zip,.txt,.yaml,.yml,.xml,.png,.jpg,.jpeg"
          aria-label="Import annotations (COCO JSON, YOLO zip, PNG masks zip, Pascal VOC, LabelMe, CVAT XML, Maskwright JSON)"
          onChange={(e) => {
            void importFiles(Array.from(e.target.files ?? []));
            e.target.value = '';
          }}
        />
      </label>
      {report && (
        <div role="status" data-testid="import-report">
          <p>{report.message}</p>
          {report.notes.length > 0 && (
            <ul aria-label="Classes">
              {report.notes.map((n) => (
                <li key={n}>{n}</li>
              ))}
            </ul>
          )}
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
    </PopupMenu>
  );
}
