import { describe, expect, it } from 'vitest';
import { followRemoteImages, type RemoteImagePorts } from './remoteImages';

/** The studio's side of a removal, with the sync's answer for the photo given. */
function studioWith(released: { imageId: string; kept: boolean } | undefined) {
  const seen = { hidden: [] as string[], kept: [] as Array<[string, string | null]> };
  const ports: RemoteImagePorts = {
    sync: { knows: () => true, expectImage: () => undefined, release: () => released },
    listImages: async () => [],
    studioId: (image) => image.id,
    isOpen: () => true,
    show: () => undefined,
    adopt: () => undefined,
    hide: (imageId) => seen.hidden.push(imageId),
    keptOutside: (imageId, removedBy) => seen.kept.push([imageId, removedBy]),
    stopped: () => false,
  };
  return { images: followRemoteImages(ports), seen };
}

describe('a photo another member removes', () => {
  it('leaves the studio when nothing of mine on it is unsaved', () => {
    const { images, seen } = studioWith({ imageId: 'img-a', kept: false });
    images.removed('srv-a', 'bob@example.test');
    expect(seen).toEqual({ hidden: ['img-a'], kept: [] });
  });

  it('stays, and I am told who removed it, when it holds my unsaved edits', () => {
    const { images, seen } = studioWith({ imageId: 'img-a', kept: true });
    images.removed('srv-a', 'bob@example.test');
    expect(seen).toEqual({ hidden: [], kept: [['img-a', 'bob@example.test']] });
  });

  it('changes nothing when the photo is not open here', () => {
    const { images, seen } = studioWith(undefined);
    images.removed('srv-a', null);
    expect(seen).toEqual({ hidden: [], kept: [] });
  });
});
