/** The shipped plan catalogue matches the interface's tables; SANDBOX_CATALOGUE replaces it, validated; instalments. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Decimal from 'decimal.js';
import { CatalogueError, loadCatalogue, type EmiIssuer } from '../../sandbox/payments/catalogue';
import { monthlyInstalment } from '../../sandbox/payments/instalment';
import { createSandbox } from '../../sandbox/app';
import { CARDLESS_EMI, CARDLESS_PROVIDERS, CREDIT_EMI, DEBIT_EMI, PAY_LATER, type TableRow } from './payments-interface-tables';

const SHIPPED = join(__dirname, '../../sandbox/payments/catalogue.json');

function asTable(issuer: EmiIssuer): Omit<TableRow, 'label'> & { label: string } {
  return {
    label: issuer.label,
    code: issuer.code,
    max: issuer.maxAmount,
    plans: Object.fromEntries(issuer.plans.map((p) => [p.tenure, [p.minAmount, p.annualRate]])),
  };
}

describe('shipped catalogue (interface section 8)', () => {
  const catalogue = loadCatalogue({});

  it('has the 15 credit issuers of 8.1 with their minimum per tenure, maximum and annual rates', () => {
    expect([...catalogue.credit.values()].map(asTable)).toEqual(CREDIT_EMI);
  });

  it('has the 3 debit issuers of 8.2 with the native OTP flag (ISS-04 has none)', () => {
    expect([...catalogue.debit.values()].map((i) => ({ ...asTable(i), nativeOtp: i.nativeOtp }))).toEqual(DEBIT_EMI);
  });

  it('has the cardless plans of 8.3 with ISS-18 No Cost for tenure 3 and Standard otherwise', () => {
    expect([...catalogue.cardlessPlans.values()].map(asTable)).toEqual(CARDLESS_EMI);
    const iss18 = catalogue.cardlessPlans.get('iss-18')!;
    expect(iss18.plans.map((p) => [p.tenure, p.type])).toEqual([[3, 'No Cost'], [6, 'Standard'], [9, 'Standard'], [12, 'Standard']]);
    expect([...catalogue.credit.values()].every((i) => i.plans.every((p) => p.type === 'Standard'))).toBe(true);
    expect([...catalogue.debit.values()].every((i) => i.plans.every((p) => p.type === 'Standard'))).toBe(true);
    const noCost = [...catalogue.cardlessPlans.values()].flatMap((i) => i.plans.filter((p) => p.type !== 'Standard').map((p) => `${i.label} ${p.tenure}`));
    expect(noCost).toEqual(['ISS-18 3']);
  });

  it('has the cardless providers of 2.8 with PROV-A 500, PROV-B 1000 and PROV-C not shown', () => {
    expect([...catalogue.cardlessProviders.values()].map((p) => ({ label: p.label, code: p.code, min: p.minAmount }))).toEqual(CARDLESS_PROVIDERS);
  });

  it('has the five pay-later codes, PL-1 being the same string as PROV-B, and only PL-4 redirecting new customers', () => {
    expect([...catalogue.payLater.values()].map((p) => ({ label: p.label, code: p.code }))).toEqual(PAY_LATER);
    expect(catalogue.codes['PL-1']).toBe(catalogue.codes['PROV-B']);
    expect([...catalogue.payLater.values()].filter((p) => p.newCustomerRedirect).map((p) => p.label)).toEqual(['PL-4']);
  });

  it('writes ISS-06 with a space and every other issuer as iss-nn', () => {
    expect(catalogue.codes['ISS-06']).toBe('iss 06');
    for (let i = 1; i <= 18; i++) {
      const label = `ISS-${String(i).padStart(2, '0')}`;
      if (label !== 'ISS-06') expect(catalogue.codes[label]).toBe(label.toLowerCase());
    }
  });
});

describe('SANDBOX_CATALOGUE', () => {
  const dir = mkdtempSync(join(tmpdir(), 'catalogue-'));
  const shipped = JSON.parse(readFileSync(SHIPPED, 'utf8'));

  it('replaces the shipped catalogue, in the sandbox too', async () => {
    const custom = structuredClone(shipped);
    custom.creditEmi = [{ issuer: 'ISS-02', maxAmount: null, plans: [{ tenure: 14, minAmount: '777', annualRate: '9.5', type: 'Standard' }] }];
    const file = join(dir, 'custom.json');
    writeFileSync(file, JSON.stringify(custom));
    const catalogue = loadCatalogue({ SANDBOX_CATALOGUE: file });
    expect([...catalogue.credit.keys()]).toEqual(['iss-02']);
    expect(catalogue.credit.get('iss-02')!.plans[0]).toEqual({ tenure: 14, minAmount: '777', annualRate: '9.5', type: 'Standard' });

    const before = process.env.SANDBOX_CATALOGUE;
    process.env.SANDBOX_CATALOGUE = file;
    const sandbox = await createSandbox({ port: 0 });
    if (before === undefined) delete process.env.SANDBOX_CATALOGUE; else process.env.SANDBOX_CATALOGUE = before;
    try {
      const shown: any = await (await fetch(`${sandbox.url}/_sandbox/catalogue`)).json();
      expect(shown.source).toBe(file);
      expect(shown.creditEmi.map((i: EmiIssuer) => i.code)).toEqual(['iss-02']);
    } finally {
      await sandbox.close();
    }
  });

  it.each([
    ['a plan amount written as a number', (c: any) => { c.creditEmi[0].plans[0].minAmount = 1000; }, /creditEmi\[0\]\.plans\[0\]\.minAmount: must be decimal text/],
    ['a tenure the interface does not allow', (c: any) => { c.creditEmi[0].plans[0].tenure = 5; }, /creditEmi\[0\]\.plans\[0\]\.tenure: must be one of 3, 6, 9, 12, 14, 18, 24, 36/],
    ['an issuer label without a code', (c: any) => { c.debitEmi[0].issuer = 'ISS-99'; }, /debitEmi\[0\]\.issuer: must be a label listed in "codes"/],
    ['an uppercase code', (c: any) => { c.codes['ISS-01'] = 'ISS-01'; }, /codes\.ISS-01: must be a non-empty lowercase code string/],
    ['a minimum above the maximum', (c: any) => { c.cardlessEmi[0].maxAmount = '10'; }, /cardlessEmi\[0\]\.plans\[0\]\.minAmount: must not exceed the issuer's maxAmount 10/],
    ['a plan type other than Standard or No Cost', (c: any) => { c.cardlessEmi[5].plans[0].type = 'Zero'; }, /cardlessEmi\[5\]\.plans\[0\]\.type: must be "Standard" or "No Cost"/],
    ['two pay-later providers with one code', (c: any) => { c.codes['PL-2'] = 'pl-3'; }, /payLater: labels PL-2 and PL-3 have the same code "pl-3"/],
  ])('is refused with the path and the rule: %s', (_what, change, message) => {
    const broken = structuredClone(shipped);
    change(broken);
    const file = join(dir, 'broken.json');
    writeFileSync(file, JSON.stringify(broken));
    expect(() => loadCatalogue({ SANDBOX_CATALOGUE: file })).toThrow(CatalogueError);
    expect(() => loadCatalogue({ SANDBOX_CATALOGUE: file })).toThrow(message);
    expect(() => loadCatalogue({ SANDBOX_CATALOGUE: file })).toThrow(file);
  });

  it('names an unreadable or non-JSON file', () => {
    expect(() => loadCatalogue({ SANDBOX_CATALOGUE: join(dir, 'missing.json') })).toThrow(/missing\.json: cannot be read/);
    const file = join(dir, 'text.json');
    writeFileSync(file, 'not json');
    expect(() => loadCatalogue({ SANDBOX_CATALOGUE: file })).toThrow(/text\.json: not valid JSON/);
  });
});

describe('monthly instalment (standard amortisation)', () => {
  it('matches the textbook value: 100000 over 12 months at 12% a year is 8884.88', () => {
    expect(monthlyInstalment('100000', '12', 12)).toBe('8884.88');
  });

  it('is P/n for a No Cost (0%) plan, rounded to paise', () => {
    expect(monthlyInstalment('5000', '0', 3)).toBe('1666.67');
  });

  it('repays the principal: instalments discounted at the monthly rate add up to the amount', () => {
    const monthly = new Decimal(monthlyInstalment('10000', '16', 3));
    const r = new Decimal(16).div(1200);
    const present = [1, 2, 3].reduce((sum, k) => sum.plus(monthly.div(r.plus(1).pow(k))), new Decimal(0));
    expect(present.minus(10000).abs().lt(0.02)).toBe(true);
  });
});
