/**
 * The command palette: typing `/` at the start of the composer lists the channel's
 * commands (docs/commands.md), grouped by bot, narrowed as the name is typed. Like the `@`
 * autocomplete, focus stays in the textarea (which points at the active row with
 * `aria-activedescendant`); ↑ ↓ choose, Enter or Tab pick, Esc closes.
 */
import { useEffect, useMemo } from 'react';
import { expandCommand, loadCommands, type RunnableCommand, runnableName, useInteractions } from '../state/interaction-store';
import { Avatar } from './avatar';
import styles from './composer-suggestions.module.css';
import palette from './command-palette.module.css';
import { Trans } from 'react-i18next';
import { t } from '../i18n';

/** The `/query` typed so far, when the whole draft is one (up to `command group subcommand`): the palette's trigger. */
export function slashQuery(text: string): string | null {
  const m = /^\/(\S*(?: \S*){0,2})$/u.exec(text);
  return m ? (m[1] ?? '').toLowerCase() : null;
}

/** The commands of the channel matching `query` (null: the palette is closed), grouped by bot. */
export function useCommandMatches(
  channelId: string,
  query: string | null,
): { items: RunnableCommand[]; loading: boolean; error: string | null } {
  const entry = useInteractions((s) => s.commands[channelId]);
  const wanted = query !== null;
  useEffect(() => {
    if (wanted) void loadCommands(channelId);
  }, [channelId, wanted]);
  const items = useMemo(() => {
    if (query === null || !entry?.items) return [];
    const ranked: { c: RunnableCommand; r: number; i: number }[] = [];
    // A command with subcommands is listed once per subcommand: `/config role add`.
    entry.items.flatMap(expandCommand).forEach((c, i) => {
      const name = runnableName(c);
      const r = !query || name.startsWith(query) ? 0 : name.includes(query) ? 1 : -1;
      if (r >= 0) ranked.push({ c, r, i });
    });
    // Bots stay in their order (the list comes grouped); within a bot, better matches first.
    const botOrder = new Map<string, number>();
    for (const { c, i } of ranked) if (!botOrder.has(c.botId)) botOrder.set(c.botId, i);
    ranked.sort((a, b) => (botOrder.get(a.c.botId) ?? 0) - (botOrder.get(b.c.botId) ?? 0) || a.r - b.r || a.i - b.i);
    return ranked.map((x) => x.c);
  }, [entry?.items, query]);
  return { items, loading: !!entry?.loading && !entry.items, error: entry?.error ?? null };
}

export const commandOptionId = (listId: string, index: number) => `${listId}-cmd-${index}`;

interface Props {
  id: string;
  query: string;
  items: RunnableCommand[];
  loading: boolean;
  active: number;
  onHover: (index: number) => void;
  onPick: (command: RunnableCommand) => void;
}

/** The popup above the composer: one group per bot (its avatar and name), then its commands. */
export function CommandPalette({ id, query, items, loading, active, onHover, onPick }: Props) {
  const groups: { botId: string; name: string; avatar?: string | null; rows: { command: RunnableCommand; index: number }[] }[] = [];
  items.forEach((command, index) => {
    let group = groups[groups.length - 1];
    if (!group || group.botId !== command.botId) {
      group = { botId: command.botId, name: command.bot?.name ?? t('commands.bot'), avatar: command.bot?.avatar, rows: [] };
      groups.push(group);
    }
    group.rows.push({ command, index });
  });
  return (
    <div className={`${styles.popup} ${palette.popup}`} data-testid="command-palette">
      <div className={styles.title} id={`${id}-title`}>
        {query ? (
          <Trans i18nKey="commands.commandsMatching" values={{ query }} components={{ q: <span className={styles.query} /> }} />
        ) : (
          t('commands.commands')
        )}
      </div>
      {items.length === 0 ? (
        <p className={palette.empty} role="status">
          {loading ? t('commands.loadingCommands') : query ? t('commands.noCommandStartsWith', { query }) : t('commands.noBotHereHas')}
        </p>
      ) : (
        <div className={styles.list} role="listbox" id={id} aria-labelledby={`${id}-title`}>
          {groups.map((g) => (
            // biome-ignore lint/a11y: a group of options inside a listbox (a fieldset would mean a form)
            <div key={g.botId} role="group" aria-labelledby={`${id}-bot-${g.botId}`} className={palette.group}>
              <div className={palette.groupHeader} id={`${id}-bot-${g.botId}`} role="presentation">
                <Avatar id={g.botId} name={g.name} src={g.avatar} size={18} />
                <span>{g.name}</span>
              </div>
              {g.rows.map(({ command, index }) => (
                // biome-ignore lint/a11y: the combobox pattern: focus stays in the input (aria-activedescendant), which handles the keys
                <div
                  key={`${command.id} ${runnableName(command)}`}
                  id={commandOptionId(id, index)}
                  role="option"
                  aria-selected={index === active}
                  data-command={runnableName(command)}
                  className={
                    index === active ? `${styles.option} ${styles.active} ${palette.option}` : `${styles.option} ${palette.option}`
                  }
                  onMouseDown={(e) => e.preventDefault()}
                  onMouseMove={() => index !== active && onHover(index)}
                  onClick={() => onPick(command)}
                >
                  <span className={palette.name}>/{runnableName(command)}</span>
                  {command.options.length > 0 && (
                    <span className={palette.params} aria-hidden="true">
                      {command.options.map((o) => (
                        <span key={o.name} className={o.required ? palette.required : undefined}>
                          {o.name}
                        </span>
                      ))}
                    </span>
                  )}
                  <span className={palette.description}>{command.description}</span>
                </div>
              ))}
            </div>
          ))}
        </div>
      )}
      <div className={styles.hint} aria-hidden="true">
        <Trans i18nKey="commands.paletteKeys" components={{ k: <kbd /> }} />
      </div>
    </div>
  );
}
