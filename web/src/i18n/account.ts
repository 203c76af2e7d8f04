/** The account page's text, added to the catalog when its chunk loads. */
import { account } from './en/account';
import { addEnglish } from './index';

addEnglish('account', account);
