import { saveImage } from './persistence/session';
import { useLocalSpace } from './persistence/spaceStore';
import { studio } from './state/studioStore';
import { useUi } from './state/uiStore';
import { addImageBlob, fetchSample } from './images/imageLibrary';

/** One path for every way an image arrives: picker, drop, paste, sample gallery. */
export async function openImageBlobs(files: Iterable<Blob & { name?: string }>): Promise<void> {
  // The batch opens on its first image, the one the user expects to see (and to be analysed first).
  let opened = 0;
  for (const file of files) {
    if (!file.type.startsWith('image/')) {
      useUi.getState().setNotice(`${file.name ?? 'That file'} is not an image.`);
      continue;
    }
    const name = file.name || `pasted-${new Date().toISOString().slice(0, 19)}.png`;
    try {
      const entry = await addImageBlob(file, name);
      const space = useLocalSpace.getState().space;
      if (space) await saveImage(space, entry.id, file).catch(() => undefined);
      studio.addImage(entry, { show: opened === 0 });
      opened += 1;
    } catch (error) {
      // The notice names the file: with several dropped at once, the user must know which one failed.
      useUi.getState().setNotice(`Could not open ${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

export async function openSample(file: string): Promise<void> {
  const blob = await fetchSample(file);
  await openImageBlobs([Object.assign(blob, { name: file })]);
}
