/**
 * The whole English catalog, for the types (a missing or misspelt key is a type error) and
 * for the catalog test. The app itself never imports this module: `core` is bundled in the
 * first load, the other areas come with their pages' chunks.
 */
import { account } from './account.js';
import { authorize } from './authorize.js';
import { core } from './core.js';
import { myBots } from './my-bots.js';
import { settings } from './settings.js';

export const english = { ...core, settings, account, myBots, authorize };

export type English = typeof english;

/** Every string of the catalog, any text. */
type Strings<T> = { [K in keyof T]: T[K] extends string ? string : Strings<T[K]> };
type Partially<T> = { [K in keyof T]?: T[K] extends string ? string : Partially<T[K]> };

/** Another language's catalog: English's keys, any of them may be missing (English is used then). */
export type Translation = Partially<Strings<English>>;
