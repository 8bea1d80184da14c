import { Fragment, useEffect, useState } from 'react';
import { SAMPLES, subscribeImages } from '../images/imageLibrary';
import { openImageBlobs, openSample } from '../openImagesAction';
import { useStudio, studio } from '../state/studioStore';
import { countsParts, reviewCounts } from '../state/reviewOps';
import { tagClassesOf } from '../state/tagOps';
import { isTag } from '../../annotations/annotation';
import { ImageThumbnail } from './ImageThumbnail';
import { useOpenProject } from '../projects/projectStore';
import { nameParts } from './nameParts';

/** The name with a middle ellipsis: the head gives way, the distinguishing tail always shows. */
function ThumbName({ name }: { name: string }) {
  const { head, tail } = nameParts(name);
  return (
    <span className="thumb-name">
      {head && <span className="thumb-name-head">{head}</span>}
      <span className="thumb-name-tail">{tail}</span>
    </span>
  );
}

export function ImageStrip() {
  const doc = useStudio((s) => s.history.present);
  const mine = useOpenProject((s) => s.mine);
  const [, force] = useState(0);
  useEffect(() => subscribeImages(() => force((n) => n + 1)), []);
  return (
    <aside className="image-strip" id="image-sheet" aria-label="Images">
      <label className="open-image button primary">
        <input
          type="file"
          accept="image/*"
          multiple
          aria-label="Open image"
          onChange={(e) => {
            void openImageBlobs(Array.from(e.target.files ?? []));
            e.target.value = '';
          }}
        />
        Open image…
      </label>
      <p className="hint">or drop / paste an image</p>
      {doc.images.length > 0 && (
        <>
          <h2 className="section-title">This session</h2>
          <ul className="thumbs">
            {doc.images.map((image) => {
              const shapes = (doc.objects[image.id] ?? []).filter((o) => !isTag(o));
              const objects = shapes.length;
              const tags = tagClassesOf(doc, image.id);
              return (
                <li key={image.id} className="session-item">
                  <button type="button" className={`thumb${image.id === doc.activeImageId ? ' active' : ''}`} aria-current={image.id === doc.activeImageId} onClick={() => studio.setActiveImage(image.id)} title={`${image.name} — ${image.width}×${image.height}`}>
                    <ImageThumbnail image={image} />
                    <span className="thumb-label">
                      <ThumbName name={image.name} />
                      {mine.has(image.id) && <span className="tag-chip assigned-chip" data-testid="assigned-to-me">assigned to you</span>}
                      {/* Each count whole on its line: "0 objects" above "· 3 to review" where the strip is narrow. */}
                      <span className="muted thumb-counts">
                        {countsParts(reviewCounts(shapes)).map((part, i) => (
                          <Fragment key={i}>
                            {i > 0 && ' '}
                            <span>{i > 0 ? `· ${part}` : part}</span>
                          </Fragment>
                        ))}
                      </span>
                      {tags.length > 0 && (
                        <span className="tag-chips" aria-label={`Tags: ${tags.map((t) => t.name).join(', ')}`}>
                          {tags.map((t) => (
                            <span key={t.id} className="tag-chip" style={{ borderColor: t.color }}>
                              {t.name}
                            </span>
                          ))}
                        </span>
                      )}
                    </span>
                  </button>
                  <button type="button" className="icon close-image" aria-label={`Close ${image.name}`} title="Close (undoable)" onClick={() => (objects === 0 || window.confirm(`Close ${image.name} and its ${objects === 1 ? 'object' : `${objects} objects`}? (Undo brings it back until the page is reloaded.)`)) && studio.removeImage(image.id)}>
                    ✕
                  </button>
                </li>
              );
            })}
          </ul>
        </>
      )}
      <h2 className="section-title">Samples</h2>
      <ul className="thumbs samples">
        {SAMPLES.map((s) => (
          <li key={s.file}>
            <button type="button" className="thumb" aria-label={`Sample: ${s.title}`} onClick={() => void openSample(s.file)}>
              <img src={`${import.meta.env.BASE_URL}samples/${s.file}`} alt="" decoding="async" />
              <span className="thumb-label">{s.title}</span>
            </button>
          </li>
        ))}
      </ul>
      <p className="hint small">
        Sample photos: public domain / CC0 (<a href={`${import.meta.env.BASE_URL}samples/LICENSES.md`}>credits</a>).
      </p>
    </aside>
  );
}
