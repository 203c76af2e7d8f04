import { MODAL_LIMITS, type Modal, type ModalField } from '@parley/protocol';
import { badRequest } from '../../errors.js';

/** A modal's rules (docs/commands.md#modals): the one a bot answers with, and what a person submits in it. */

/** Checks a modal a bot answers with beyond its schema (Discord's rules); returns it as kept, `required` said. */
export function checkModal(modal: Modal): Modal {
  const bad = (where: string, why: string) => badRequest(`data.modal.${where}: ${why}`, 'invalid_modal');
  if (modal.title.trim() === '') throw bad('title', 'must not be blank');
  const ids = new Set<string>();
  return {
    customId: modal.customId,
    title: modal.title,
    components: modal.components.map((row, i) => {
      const input = row.components[0]!;
      const at = `components[${i}]`;
      if (ids.has(input.customId)) throw bad(`${at}.customId`, `"${input.customId}" is used twice`);
      ids.add(input.customId);
      if (input.label.trim() === '') throw bad(`${at}.label`, 'must not be blank');
      const max = input.maxLength ?? MODAL_LIMITS.value;
      if (input.minLength !== undefined && input.minLength > max) throw bad(at, 'minLength must not be more than maxLength');
      if (input.value !== undefined && [...input.value].length > max) throw bad(`${at}.value`, `must be at most ${max} characters`);
      return {
        type: 'row' as const,
        components: [
          {
            type: 'textInput' as const,
            customId: input.customId,
            style: input.style,
            label: input.label,
            ...(input.minLength !== undefined ? { minLength: input.minLength } : {}),
            ...(input.maxLength !== undefined ? { maxLength: input.maxLength } : {}),
            required: input.required ?? true,
            ...(input.value !== undefined ? { value: input.value } : {}),
            ...(input.placeholder !== undefined ? { placeholder: input.placeholder } : {}),
          },
        ],
      };
    }),
  };
}

/**
 * The submitted values against the modal's text inputs: every field one of its inputs (once),
 * a required input not empty, a value within its lengths (in characters). Returns every
 * input's value in the modal's order, an empty string for one left empty.
 */
export function checkFields(modal: Modal, fields: readonly ModalField[]): ModalField[] {
  const inputs = modal.components.map((r) => r.components[0]!);
  const known = new Set(inputs.map((i) => i.customId));
  const given = new Map<string, string>();
  for (const f of fields) {
    if (!known.has(f.customId)) throw badRequest(`the modal has no text input "${f.customId}"`, 'invalid_fields');
    if (given.has(f.customId)) throw badRequest(`"${f.customId}" is submitted twice`, 'invalid_fields');
    given.set(f.customId, f.value);
  }
  return inputs.map((input) => {
    const value = given.get(input.customId) ?? '';
    const length = [...value].length;
    const bad = (why: string) => badRequest(`"${input.label}" (${input.customId}) ${why}`, 'invalid_fields');
    if (value === '') {
      if (input.required !== false) throw bad('is required');
    } else {
      if (input.minLength !== undefined && length < input.minLength) throw bad(`must be at least ${input.minLength} characters`);
      const max = input.maxLength ?? MODAL_LIMITS.value;
      if (length > max) throw bad(`must be at most ${max} characters`);
      if (value.includes('\u0000')) throw bad('must not contain NUL');
    }
    return { customId: input.customId, value };
  });
}
