/**
 * A Lambda cold start asks Intl for nothing on the way to its first DateTime (issue 17.7): luxon's locale is en-US
 * (functions/domain/instant.ts), so luxon does not ask for the machine's locale, whose first Intl.DateTimeFormat loads
 * ICU's data (about 12 ms of CPU, `npx tsx bench/run.ts bundles`).
 */
import { Settings } from 'luxon';
import { Instant } from '../../functions/domain/instant';

it("a DateTime in India time, made as a cold start's first, builds no Intl.DateTimeFormat", () => {
  const original = Intl.DateTimeFormat;
  let made = 0;
  // luxon keeps the machine's locale once it has asked: cleared, this DateTime is made as a fresh process makes its first.
  Settings.resetCaches();
  Intl.DateTimeFormat = new Proxy(original, {
    construct(target, args: ConstructorParameters<typeof Intl.DateTimeFormat>) {
      made += 1;
      return new target(...args);
    },
  });
  try {
    const time = Instant.withOffset(Date.parse('2026-11-26T10:00:00Z'), 330).toDateTime();
    expect(time.toISO()).toBe('2026-11-26T15:30:00.000+05:30');
    expect(time.locale).toBe('en-US');
    expect(made).toBe(0);
  } finally {
    Intl.DateTimeFormat = original;
  }
});
