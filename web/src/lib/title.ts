/**
 * The tab title: each page names itself with `setPageTitle`; while mentions wait for the
 * person, their count goes in front, as in "(3) #general · Home · Parley".
 */

import { t } from '../i18n';

let base = typeof document !== 'undefined' && document.title ? document.title : t('titles.app');
let count = 0;

function apply(): void {
  const title = count > 0 ? `(${count}) ${base}` : base;
  if (document.title !== title) document.title = title;
}

export function setPageTitle(title: string): void {
  base = title;
  apply();
}

export function setTitleCount(n: number): void {
  count = n;
  apply();
}
