import { useEffect, useRef, useState } from 'react';
import { imageBlob } from '../images/imageLibrary';
import { localThumbnail, readyLocalThumbnail, serverThumbnailUrl } from '../images/thumbnails';
import type { ImageEntry } from '../../annotations/annotation';

/**
 * A row's picture in the image list (images/thumbnails.ts): the server's thumbnail of a project
 * image, loaded by the browser when the row nears the view and decoded off the main thread; else
 * one made here from the file once the row nears the view. A server thumbnail that fails (offline)
 * falls back to the local one.
 */
export function ImageThumbnail({ image }: { image: ImageEntry }) {
  const [serverFailed, setServerFailed] = useState(false);
  const [local, setLocal] = useState(() => readyLocalThumbnail(image.id));
  const placeholder = useRef<HTMLSpanElement>(null);
  const server = serverFailed ? null : serverThumbnailUrl(image.id);
  const file = imageBlob(image.id);

  useEffect(() => {
    const target = placeholder.current;
    if (server || local || !file || !target) return;
    let live = true;
    const observer = new IntersectionObserver(
      (entries) => {
        if (!entries.some((entry) => entry.isIntersecting)) return;
        observer.disconnect();
        void localThumbnail(image.id, file, image.width, image.height).then((url) => live && setLocal(url));
      },
      { rootMargin: '300px' },
    );
    observer.observe(target);
    return () => {
      live = false;
      observer.disconnect();
    };
  }, [server, local, file, image.id, image.width, image.height]);

  const src = server ?? local;
  if (!src) return <span ref={placeholder} className="thumb-placeholder" aria-hidden="true" />;
  return <img src={src} alt="" width={44} height={34} loading="lazy" decoding="async" onError={server ? () => setServerFailed(true) : undefined} />;
}
