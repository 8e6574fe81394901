/**
 * The bodies of the configuration routes (contract 4 and 6): settings and a vendor's policy, each changed or previewed.
 * Each member is declared once here, checked by the domain's own description of what it may be (SETTINGS_FIELD_ISSUES,
 * POLICY_FIELD_ISSUES, CHANGE_OPTION_ISSUES: the words validateSettings and validatePolicyInput say too), read by its
 * route before the use case runs and documented from the same object. What a member means against stored state (a
 * settings version) is the use case's.
 */
import { asSent, checkedField, objectBody, textField, type Field } from '../../application/body-schema';
import { CHANGE_OPTION_ISSUES } from '../../application/config/policy-change';
import { POLICY_FIELD_ISSUES, POLICY_KEYS, SETTINGS_FIELD_ISSUES, SETTINGS_KEYS, policyNotObject } from '../../domain/settings';
import { SETTINGS_COMPONENT } from './settings-component';
import { ref, type Json } from './openapi-parts';

const SETTINGS_PROPERTIES = SETTINGS_COMPONENT.properties as Record<string, Json>;
/** Each setting, checked when sent (a partial body keeps the rest in force), described as GET /settings shows it. */
const SETTINGS_FIELDS = Object.fromEntries(SETTINGS_KEYS.map((key) => [key, checkedField(SETTINGS_FIELD_ISSUES[key], SETTINGS_PROPERTIES[key])])) as Record<(typeof SETTINGS_KEYS)[number], Field<unknown>>;
const ONLY_SETTINGS = `only ${SETTINGS_KEYS.join(', ')}`;
/** Who, why and which preview of a PUT: a short text each, or left out. */
const shortText = (schema: Json) => textField({ limit: 200, problem: 'not a non-empty text of at most 200 characters', expected: 'a short text, or leave it out', schema });
/** `at` of a GET's answer sent back as it is: not a setting, left out. */
const SAVED_AT: Field<undefined> = { schema: { ...SETTINGS_PROPERTIES.at, readOnly: true }, read: () => undefined };

export const SETTINGS_EXAMPLE = { deferByDays: 15, timezone: 'Asia/Kolkata', defaultScheduleOption: 1, holidays: ['2022-12-25'], settlementDays: 'working', releaseLead: 'PT1H', actor: 'finance@example.com', reason: 'mirror the dashboard' };

/** PUT /settings: a full or partial body merged over the settings in force (a GET's answer may be sent back as it is). */
export const SETTINGS_BODY = objectBody({
  description: 'Contract section 4. A full or partial body, merged over the current settings.',
  fields: {
    ...SETTINGS_FIELDS,
    actor: shortText(SETTINGS_PROPERTIES.actor),
    reason: shortText(SETTINGS_PROPERTIES.reason),
    previewId: shortText(SETTINGS_PROPERTIES.previewId),
    // A whole number equal to the version in force: checked by the use case, which names the current one.
    version: asSent(SETTINGS_PROPERTIES.version),
    at: SAVED_AT,
  },
  example: SETTINGS_EXAMPLE,
  hint: '{"deferByDays": 15}',
  notObject: 'a JSON object with the settings to change, e.g. {"deferByDays": 15}',
  unknownMember: ONLY_SETTINGS,
});

/** POST /settings/preview: the settings a PUT would send; who, why, version and previewId are the PUT's and not read. */
export const SETTINGS_PREVIEW_BODY = objectBody({
  description: 'The settings to preview, as PUT /settings takes them (merged over the current settings).',
  fields: {
    ...SETTINGS_FIELDS,
    actor: asSent(SETTINGS_PROPERTIES.actor),
    reason: asSent(SETTINGS_PROPERTIES.reason),
    previewId: asSent(SETTINGS_PROPERTIES.previewId),
    version: asSent(SETTINGS_PROPERTIES.version),
    at: SAVED_AT,
  },
  example: { deferByDays: 10 },
  notObject: 'a JSON object with the settings to preview, e.g. {"deferByDays": 10}',
  unknownMember: ONLY_SETTINGS,
});

export const POLICY_EXAMPLE = { scheduleOption: 1, release: { kind: 'after_delivery', delay: 'P2D' }, actor: 'finance@example.com', reason: 'trusted vendor' };

/** The members of a policy change; `who` is required for a PUT, and defaults to "preview" in a preview. */
function policyBody(who: 'required' | 'preview', example: unknown, hint?: string) {
  const person = (key: 'actor' | 'reason') => checkedField(POLICY_FIELD_ISSUES[key], { type: 'string' }, who === 'required' ? { required: true, absent: 'check' } : {});
  return objectBody({
    fields: {
      scheduleOption: checkedField(POLICY_FIELD_ISSUES.scheduleOption, { type: 'integer' }, { required: true, absent: 'check' }),
      release: checkedField(POLICY_FIELD_ISSUES.release, ref('ReleaseRule'), { required: true, absent: 'check' }),
      actor: person('actor'),
      reason: person('reason'),
      maxExposure: checkedField(POLICY_FIELD_ISSUES.maxExposure, ref('MaxExposure')),
      expectedVersion: checkedField(CHANGE_OPTION_ISSUES.expectedVersion, { type: 'integer', description: 'Refused with 409 when the current version is another.' }),
      applyTo: checkedField(CHANGE_OPTION_ISSUES.applyTo, { type: 'string', enum: ['new_orders', 'open_orders'], default: 'new_orders' }),
      previewId: checkedField(CHANGE_OPTION_ISSUES.previewId, { type: 'string', description: 'Applies only if what that preview showed still holds, else 409 preview_stale.' }),
    },
    example,
    ...(hint === undefined ? {} : { hint }),
    notObject: policyNotObject,
    unknownMember: `only ${POLICY_KEYS.join(', ')}`,
  });
}

/** PUT /vendors/{vendorId}/policy. */
export const POLICY_BODY = policyBody('required', POLICY_EXAMPLE);
/** POST /vendors/{vendorId}/policy/preview: the body of the PUT it previews; who and why may wait for the PUT. */
export const POLICY_PREVIEW_BODY = policyBody('preview', POLICY_EXAMPLE, '{"scheduleOption": 1, "release": {"kind": "immediate"}, "actor": "finance@example.com", "reason": "trusted vendor", "applyTo": "open_orders"}');
