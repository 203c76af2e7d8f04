/**
 * Desktop notifications in browser tests: grant the permission and record every
 * `new Notification(...)` the page makes (the real constructor still runs).
 */
import type { Page } from 'playwright-core';

export interface RecordedNotification {
  title: string;
  body: string;
  tag: string;
  icon: string;
}

/** Run before the first navigation (`openPage`'s `prepare`). */
export async function recordNotifications(page: Page, origin: string, opts: { grant?: boolean } = {}): Promise<void> {
  if (opts.grant !== false) await page.context().grantPermissions(['notifications'], { origin });
  // On the context: tabs opened later in the same browser record too.
  await page.context().addInitScript(() => {
    const w = globalThis as any;
    const Real = w.Notification;
    if (!Real) return;
    w.__notifications = [];
    w.__notificationObjects = [];
    class Recorded extends Real {
      constructor(title: string, options: any = {}) {
        super(title, options);
        w.__notifications.push({ title, body: options.body ?? '', tag: options.tag ?? '', icon: options.icon ?? '' });
        w.__notificationObjects.push(this);
      }
    }
    Object.defineProperty(Recorded, 'permission', { get: () => Real.permission });
    (Recorded as any).requestPermission = (...args: unknown[]) => Real.requestPermission(...args);
    w.Notification = Recorded;
  });
}

export function notifications(page: Page): Promise<RecordedNotification[]> {
  return page.evaluate(() => (globalThis as any).__notifications ?? []);
}

/** Waits until the page has made `count` notifications; resolves to them all. */
export async function waitForNotifications(page: Page, count: number): Promise<RecordedNotification[]> {
  await page.waitForFunction((n) => ((globalThis as any).__notifications ?? []).length >= n, count);
  return notifications(page);
}

/** Clicks the `index`th notification (as the person would on their desktop). */
export function clickNotification(page: Page, index: number): Promise<void> {
  return page.evaluate((i) => {
    (globalThis as any).__notificationObjects[i].dispatchEvent(new Event('click'));
  }, index);
}
