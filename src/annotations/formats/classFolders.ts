import { renamedClassNotes } from './categories';
import { namesOnlyClassNotes, type Dataset, type DatasetTag } from './dataset';
import type { DatasetFormat } from './format';
import { fileNameOf, type ImportedAnnotation, type InputFile } from './imported';
import { writeZip, type ZipEntry } from './zip';

/**
 * A classification dataset as most training scripts read it (torchvision's ImageFolder, Keras'
 * image_dataset_from_directory): one folder per class holding the photos tagged with it. A photo
 * with two tags is in two folders; an untagged photo is in none.
 */
const IMAGE = /\.(jpe?g|png|webp|gif|bmp)$/i;

/** Folders that other dataset layouts keep their photos or masks in: they name no class. */
const LAYOUT_FOLDERS = /^(images|JPEGImages|SegmentationClass|SegmentationObject|Annotations|labels|masks|train|val|valid|test)$/i;

/** A class name as a folder name: path separators and characters Windows refuses become "_". */
export const folderName = (className: string) => className.replace(/[\\/:*?"<>|]/g, '_').replace(/^\.+$/, '_') || '_';

const tagClassName = (dataset: Dataset, tag: DatasetTag) => dataset.categories.find((c) => c.id === tag.categoryId)?.name ?? tag.object.label;

export function classFoldersZip(dataset: Dataset): Uint8Array {
  const entries: ZipEntry[] = [];
  for (const { image, tags = [], bytes } of dataset.images) {
    if (!bytes) continue;
    for (const tag of tags) entries.push({ name: `${folderName(tagClassName(dataset, tag))}/${fileNameOf(image.name)}`, data: bytes });
  }
  return writeZip(entries);
}

/** The folder a photo lies in, when that folder can be a class. */
function classFolderOf(path: string): string | undefined {
  const parts = path.split(/[\\/]/);
  const folder = parts.length >= 2 ? parts[parts.length - 2] : undefined;
  return folder && !LAYOUT_FOLDERS.test(folder) ? folder : undefined;
}

export const classFoldersFormat: DatasetFormat = {
  id: 'class-folders',
  label: 'Class folders zip',
  summary: 'one folder per class holding the photos tagged with it (image tags, ImageFolder layout)',
  holds: { mask: false, box: false, tag: true },
  carriesImages: true,
  requiresImages: true,
  async write(dataset) {
    const tagged = dataset.images.flatMap((e) => (e.tags ?? []).map((t) => tagClassName(dataset, t)));
    return { name: 'maskwright-session.classes.zip', bytes: classFoldersZip(dataset), mime: 'application/zip', notes: [...renamedClassNotes('Class folders zip', tagged, folderName), ...namesOnlyClassNotes('Class folders zip', dataset)] };
  },
  async read(files: readonly InputFile[]) {
    const tagged = files.filter((f) => IMAGE.test(f.name) && classFolderOf(f.name));
    if (tagged.length === 0) return undefined;
    const annotations: ImportedAnnotation[] = tagged.map((f) => ({ fileName: fileNameOf(f.name), className: classFolderOf(f.name)!, tag: true }));
    // The photo is opened once: its copies in the other class folders are only tags.
    const seen = new Set<string>();
    const copies = tagged.filter((f) => seen.has(fileNameOf(f.name).toLowerCase()) || !seen.add(fileNameOf(f.name).toLowerCase()));
    const classes = [...new Set(annotations.map((a) => a.className))];
    return { dataset: { format: 'class-folders', images: [], categories: classes.map((name) => ({ name })), annotations, problems: [] }, consumed: copies.map((f) => f.name) };
  },
};
