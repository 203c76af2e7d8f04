/** The bot invite page's text, added to the catalog when its chunk loads. */
import { authorize } from './en/authorize';
import { addEnglish } from './index';

addEnglish('authorize', authorize);
