/** Server settings' text, added to the catalog when their chunk loads (import this from each of their modules). */
import { settings } from './en/settings';
import { addEnglish } from './index';

addEnglish('settings', settings);
