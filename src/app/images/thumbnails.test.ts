import { describe, expect, it } from 'vitest';
import { PROJECT_THUMBNAIL_MAX_SIDE } from '../../contract/projects';
import { forgetThumbnails, serverThumbnailUrl, setServerThumbnails, thumbnailSize } from './thumbnails';

describe('thumbnailSize', () => {
  it("fits a photo into the server's bound, keeping its aspect", () => {
    expect(thumbnailSize(451, 300)).toEqual({ width: PROJECT_THUMBNAIL_MAX_SIDE, height: 85 });
    expect(thumbnailSize(300, 4000)).toEqual({ width: 10, height: PROJECT_THUMBNAIL_MAX_SIDE });
  });

  it('never enlarges a small photo, and never rounds a side to nothing', () => {
    expect(thumbnailSize(40, 30)).toEqual({ width: 40, height: 30 });
    expect(thumbnailSize(10_000, 20)).toEqual({ width: PROJECT_THUMBNAIL_MAX_SIDE, height: 1 });
  });
});

describe('server thumbnails', () => {
  it("are kept per image id until another person's space opens", () => {
    setServerThumbnails([['img-a', '/api/v1/projects/p/images/a/thumbnail']]);
    expect(serverThumbnailUrl('img-a')).toBe('/api/v1/projects/p/images/a/thumbnail');
    expect(serverThumbnailUrl('img-b')).toBeNull();
    forgetThumbnails();
    expect(serverThumbnailUrl('img-a')).toBeNull();
  });
});
