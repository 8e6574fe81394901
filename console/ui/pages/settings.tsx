/** Settings: Defer by Days and the others, previewed over every unsent release before they are saved; their history. */
import { useEffect, useState } from 'preact/hooks';
import { call, listOf } from '../api';
import { indiaTime } from '../format';
import { confirmSend, Loaded, LoadedTable, NOT_CONFIRMED, ProblemNote, ReasonField, requireActor, Section, SelectField, TextField, useAction } from '../form';
import { useLoad } from '../load';
import { PreviewView, type PreviewAnswer } from '../preview';
import { previewOfAnySize } from '../job';

interface Settings {
  deferByDays: number;
  timezone: string;
  defaultScheduleOption: number;
  holidays: string[];
  settlementDays: string;
  releaseLead: string;
  version?: number;
  actor?: string;
  reason?: string;
  at?: string;
}

type Draft = Record<'deferByDays' | 'timezone' | 'defaultScheduleOption' | 'holidays' | 'settlementDays' | 'releaseLead', string>;

function draftOf(s: Settings): Draft {
  return {
    deferByDays: String(s.deferByDays), timezone: s.timezone, defaultScheduleOption: String(s.defaultScheduleOption),
    holidays: s.holidays.join(', '), settlementDays: s.settlementDays, releaseLead: s.releaseLead,
  };
}

/** Numbers go as numbers when they are numbers; anything else as typed, so the API names what is wrong with it. */
function bodyOf(d: Draft) {
  const number = (text: string) => (/^-?\d+$/.test(text.trim()) ? Number(text) : text);
  return {
    deferByDays: number(d.deferByDays), timezone: d.timezone.trim(), defaultScheduleOption: number(d.defaultScheduleOption),
    holidays: d.holidays.split(/[\s,]+/).filter(Boolean), settlementDays: d.settlementDays, releaseLead: d.releaseLead.trim(),
  };
}

/** What a save changes, in words: "Defer by Days 15 -> 20, bank holidays none -> 2022-12-25". */
function settingsChange(current: Settings, draft: Draft): string {
  const before = draftOf(current);
  const names: Record<keyof Draft, string> = {
    deferByDays: 'Defer by Days', timezone: 'timezone', defaultScheduleOption: 'default schedule option', holidays: 'bank holidays',
    settlementDays: 'T+n counts', releaseLead: 'release lead',
  };
  const changes = (Object.keys(names) as Array<keyof Draft>)
    .filter((k) => before[k].trim() !== draft[k].trim())
    .map((k) => `${names[k]} ${before[k] || 'none'} -> ${draft[k] || 'none'}`);
  return changes.length ? changes.join(', ') : 'nothing changes but the reason';
}

function SettingsEditor({ current, onSaved }: { current: Settings; onSaved: () => void }) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(current));
  useEffect(() => setDraft(draftOf(current)), [current.version]);
  const [reason, setReason] = useState('');
  const [preview, setPreview] = useState<{ key: string; answer: PreviewAnswer } | null>(null);
  const [saved, setSaved] = useState<Settings | null>(null);
  const [declined, setDeclined] = useState(false);
  const action = useAction();
  const set = (name: keyof Draft) => (value: string) => setDraft({ ...draft, [name]: value });
  const key = JSON.stringify([draft, reason]);
  const shown = preview && preview.key === key ? preview.answer : null;
  const fields = ['deferByDays', 'timezone', 'defaultScheduleOption', 'holidays', 'settlementDays', 'releaseLead', 'reason'];
  return (
    <form aria-label="Change the settings" data-testid="settings-editor" onSubmit={(e) => {
      e.preventDefault();
      void action.run(async () => {
        const answer = await previewOfAnySize<PreviewAnswer>('/settings/preview', { ...bodyOf(draft), actor: requireActor(), reason });
        setPreview({ key, answer });
        setSaved(null);
      });
    }}>
      <div class="fields">
        <TextField label="Defer by Days (0 to 365; the gateway dashboard's value)" field="deferByDays" type="number" problem={action.problem} value={draft.deferByDays} onValue={set('deferByDays')} testId="settings-defer" />
        <TextField label="Timezone (IANA)" field="timezone" problem={action.problem} value={draft.timezone} onValue={set('timezone')} />
        <TextField label="Default schedule option" field="defaultScheduleOption" problem={action.problem} value={draft.defaultScheduleOption} onValue={set('defaultScheduleOption')} />
        <TextField label="Bank holidays (YYYY-MM-DD, comma separated)" field="holidays" problem={action.problem} value={draft.holidays} onValue={set('holidays')} />
        <SelectField label="T+n counts" field="settlementDays" problem={action.problem} value={draft.settlementDays} onValue={set('settlementDays')} options={[['working', 'bank working days'], ['calendar', 'calendar days']]} />
        <TextField label="Release lead (ISO 8601 duration)" field="releaseLead" problem={action.problem} value={draft.releaseLead} onValue={set('releaseLead')} hint="how long before its target a release is sent, e.g. PT1H" />
        <ReasonField problem={action.problem} value={reason} onValue={setReason} testId="settings-reason" />
      </div>
      <button type="submit" disabled={action.busy} data-testid="settings-preview">Preview the change</button>
      <button type="button" disabled={action.busy || !shown} data-testid="settings-apply" onClick={() => void action.run(async () => {
        const body = { ...bodyOf(draft), actor: requireActor(), reason, previewId: shown!.previewId, ...(current.version !== undefined ? { version: current.version } : {}) };
        // Settings move money (every unsent release is planned again under them): say what moves and what is sent, first.
        if (!confirmSend(`Save the settings: ${settingsChange(current, draft)}. ${shown!.moved} of ${shown!.covered} unsent release(s) move to the dates the preview shows.`, 'PUT', '/settings', body)) {
          setSaved(null);
          setDeclined(true);
          return;
        }
        setDeclined(false);
        const answer = await call<Settings>('PUT', '/settings', body);
        setSaved(answer);
        setPreview(null);
        onSaved();
      })}>Save these settings</button>
      <ProblemNote problem={action.problem} shownFields={fields} testId="settings-problem" />
      {declined ? <p class="hint" role="status" data-testid="settings-declined">{NOT_CONFIRMED}</p> : null}
      {saved ? <p class="ok" role="status" data-testid="settings-saved">Settings version {saved.version ?? ''} saved.</p> : null}
      {shown ? <PreviewView preview={shown} what="the settings change" /> : null}
    </form>
  );
}

export function SettingsPage() {
  const [round, setRound] = useState(0);
  const settings = useLoad(() => call<Settings>('GET', '/settings'), [round]);
  const history = useLoad(async () => listOf<Settings>(await call('GET', '/settings/history'), 'versions'), [round]);
  return (
    <>
      <h1>Settings</h1>
      <Section title="Settings in force" testId="settings">
        <Loaded state={settings}>{(s) => <SettingsEditor current={s} onSaved={() => setRound((r) => r + 1)} />}</Loaded>
      </Section>
      <LoadedTable
        title="History"
        sectionTestId="settings-history"
        state={history}
        caption="Saved settings versions, newest first"
        headers={['Version', 'Defer by Days', 'T+n counts', 'Release lead', 'Holidays', 'Actor', 'Reason', 'At']}
        empty="none saved yet: the defaults apply."
        rows={(versions) => versions.map((v, i) => ({ key: String(v.version ?? i), cells: [v.version ?? '—', v.deferByDays, v.settlementDays, v.releaseLead, v.holidays.join(', ') || '—', v.actor ?? '—', v.reason ?? '—', indiaTime(v.at)] }))}
      />
    </>
  );
}
