import 'i18next';
import type { English } from './en/index';

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: { translation: English };
    returnNull: false;
  }
}
