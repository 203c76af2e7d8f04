/**
 * The message catalog (issue 13). English is bundled and set up synchronously when this
 * module loads, so the first render already has its text. The areas only lazily loaded pages
 * use (server settings, the account page, My bots) come with those pages' chunks and are
 * added when the chunk loads (`addEnglish`), which keeps their text out of the first load.
 * Another language is one file in `locales/`, loaded before the first render when the
 * browser asks for it; what it lacks falls back to English.
 */
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { core } from './en/core';
import type { English, Translation } from './en/index';
import { pickLanguage } from './pick';

i18next.use(initReactI18next).init({
  lng: 'en',
  fallbackLng: 'en',
  supportedLngs: false,
  resources: { en: { translation: core } },
  initAsync: false,
  // React escapes what it renders; escaping here too would show "&amp;".
  interpolation: { escapeValue: false },
  returnNull: false,
});

/** Translate outside React's render too (toasts, titles, errors). The language is picked once, at start-up. */
export const t = i18next.t.bind(i18next) as typeof i18next.t;

/** Adds an area of the English catalog that a lazily loaded page brings with it. */
export function addEnglish<K extends keyof English>(area: K, resources: English[K]): void {
  i18next.addResourceBundle('en', 'translation', { [area]: resources }, true, false);
}

const locales = import.meta.glob<{ default: Translation }>('./locales/*.ts');

/**
 * Loads the browser's language, if there is a catalog for it and it is not English. Returns
 * null when there is nothing to wait for (English), so the app renders at once.
 */
export function loadLanguage(): Promise<void> | null {
  const available = Object.keys(locales).map((p) => p.replace(/^\.\/locales\/|\.ts$/g, ''));
  const wanted = typeof navigator === 'undefined' ? [] : navigator.languages?.length ? navigator.languages : [navigator.language];
  const lang = pickLanguage(wanted, available);
  if (lang === 'en') return null;
  return locales[`./locales/${lang}.ts`]!()
    .then(async (mod) => {
      i18next.addResourceBundle(lang, 'translation', mod.default, true, true);
      await i18next.changeLanguage(lang);
      document.documentElement.lang = lang;
    })
    .catch((err: unknown) => console.error(`Could not load the ${lang} catalog; staying with English`, err));
}
