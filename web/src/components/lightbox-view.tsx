/** The lightbox itself (a chunk of its own: see lightbox.tsx). */
import { useMemo, useState } from 'react';
import Lightbox from 'yet-another-react-lightbox';
import Counter from 'yet-another-react-lightbox/plugins/counter';
import 'yet-another-react-lightbox/styles.css';
import { t } from '../i18n';
import 'yet-another-react-lightbox/plugins/counter.css';
import { lightboxClosed, type LightboxState } from './lightbox';
import styles from './lightbox.module.css';

export default function LightboxView({ state }: { state: LightboxState }) {
  const [open, setOpen] = useState(true);
  const [index, setIndex] = useState(state.index);
  const many = state.images.length > 1;
  const image = state.images[index];
  // Stable across renders: new slides (or plugins) would send the viewer back to the first image.
  const slides = useMemo(() => state.images.map((i) => ({ src: i.src, alt: i.alt })), [state.images]);
  const plugins = useMemo(() => (many ? [Counter] : []), [many]);
  return (
    <Lightbox
      open={open}
      close={() => setOpen(false)}
      index={state.index}
      slides={slides}
      plugins={plugins}
      className={styles.lightbox}
      carousel={{ finite: true, preload: 1 }}
      controller={{ closeOnBackdropClick: true }}
      animation={{ fade: 200, swipe: 250 }}
      labels={{
        Lightbox: t('lightbox.viewer'),
        Carousel: t('lightbox.images'),
        'Photo gallery': t('lightbox.images'),
        Previous: t('lightbox.previous'),
        Next: t('lightbox.next'),
        Close: t('lightbox.close'),
        Slide: t('lightbox.image'),
      }}
      toolbar={{
        buttons: [
          image && (
            <a
              key="original"
              className={`yarl__button ${styles.original}`}
              href={image.src}
              target="_blank"
              rel="noopener noreferrer"
              download={image.name}
              title={t('lightbox.openOriginalTitle')}
            >
              {t('lightbox.openOriginal')}
            </a>
          ),
          'close',
        ],
      }}
      render={many ? undefined : { buttonPrev: () => null, buttonNext: () => null }}
      on={{ view: ({ index: i }) => setIndex(i), exited: lightboxClosed }}
    />
  );
}
