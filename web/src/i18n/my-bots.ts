/** My bots' text, added to the catalog when its chunk loads. */
import { myBots } from './en/my-bots';
import { addEnglish } from './index';

addEnglish('myBots', myBots);
