/** The plan tables of the gateway interface (section 8), written out from the document for the tests to check against. */

export interface TableRow {
  label: string;
  code: string;
  /** tenure → [minimum, annual rate] */
  plans: Record<number, [string, string]>;
  max: string | null;
}

const row = (label: string, code: string, max: string | null, ...groups: Array<[number[], string, string]>): TableRow => ({
  label,
  code,
  max,
  plans: Object.fromEntries(groups.flatMap(([tenures, min, rate]) => tenures.map((t) => [t, [min, rate] as [string, string]]))),
});

/** 8.1 Credit card EMI plans (type Standard). */
export const CREDIT_EMI: TableRow[] = [
  row('ISS-01', 'iss-01', '500000', [[3], '1000', '16'], [[6, 9, 12], '3000', '16']),
  row('ISS-02', 'iss-02', '1000000', [[3, 6], '2500', '14'], [[9, 12], '2500', '15'], [[18, 24], '2500', '16']),
  row('ISS-03', 'iss-03', null, [[3], '1000', '16'], [[6, 9, 12, 18, 24], '2500', '16']),
  row('ISS-04', 'iss-04', '500000', [[3, 6, 9, 12, 18, 24], '1500', '15.99']),
  row('ISS-05', 'iss-05', null, [[3], '2500', '13'], [[6, 9], '2500', '14'], [[12], '2500', '15'], [[24, 36], '2500', '16']),
  row('ISS-06', 'iss 06', '500000', [[3], '2000', '11.88'], [[6], '2000', '14'], [[9, 12, 18, 24], '2000', '15']),
  row('ISS-07', 'iss-07', null, [[3], '1500', '13'], [[6], '1500', '14'], [[9, 12, 18, 24], '1500', '15']),
  row('ISS-08', 'iss-08', null, [[3, 6, 9, 12, 18, 24], '2000', '14']),
  row('ISS-09', 'iss-09', null, [[3, 6, 9], '2000', '14'], [[12, 18, 24, 36], '2000', '15']),
  row('ISS-10', 'iss-10', null, [[3, 6, 9, 12], '4000', '14']),
  row('ISS-11', 'iss-11', null, [[3, 6, 9], '1500', '14'], [[12, 18, 24], '1500', '15']),
  row('ISS-12', 'iss-12', null, [[3, 6], '2000', '12.5'], [[9, 12, 18], '2000', '13.5']),
  row('ISS-13', 'iss-13', '750000', [[3, 6, 9, 12], '2500', '14']),
  row('ISS-14', 'iss-14', null, [[3, 6], '2500', '13'], [[9, 12], '2500', '15']),
  row('ISS-15', 'iss-15', null, [[3, 6, 9, 12, 18, 24], '5000', '14']),
];

/** 8.2 Debit card EMI plans, with the native OTP flag. */
export const DEBIT_EMI: Array<TableRow & { nativeOtp: boolean }> = [
  { ...row('ISS-01', 'iss-01', '500000', [[3], '3000', '16'], [[6, 9, 12, 18, 24], '5000', '16']), nativeOtp: true },
  { ...row('ISS-03', 'iss-03', '200000', [[3], '3000', '19'], [[6], '5000', '19'], [[9, 12], '8000', '19']), nativeOtp: true },
  { ...row('ISS-04', 'iss-04', '500000', [[3, 6, 9, 12], '5000', '16']), nativeOtp: false },
];

/** 8.3 Cardless EMI plans (ISS-18 tenure 3 is No Cost). */
export const CARDLESS_EMI: TableRow[] = [
  row('ISS-01', 'iss-01', '500000', [[3], '3000', '16'], [[6, 9, 12, 18, 24], '5000', '16']),
  row('ISS-03', 'iss-03', '200000', [[3], '3000', '19'], [[6, 9, 12], '5000', '19']),
  row('ISS-04', 'iss-04', '500000', [[3, 6, 9, 12], '7000', '17']),
  row('ISS-16', 'iss-16', '100000', [[3, 6, 9, 12], '5000', '24']),
  row('ISS-17', 'iss-17', '100000', [[3], '1000', '23.78'], [[6], '6000', '25.28'], [[9], '9000', '25.63'], [[12], '12000', '25.8']),
  row('ISS-18', 'iss-18', '150000', [[3], '5000', '0'], [[6, 9, 12], '5000', '36']),
];

/** 2.8 cardless providers and 2.6 pay-later codes (PL-1 is the same string as PROV-B). */
export const CARDLESS_PROVIDERS = [
  { label: 'PROV-A', code: 'prov-a', min: '500' },
  { label: 'PROV-B', code: 'prov-b', min: '1000' },
  { label: 'PROV-C', code: 'prov-c', min: null },
];
export const PAY_LATER = [
  { label: 'PL-1', code: 'prov-b' },
  { label: 'PL-2', code: 'pl-2' },
  { label: 'PL-3', code: 'pl-3' },
  { label: 'PL-4', code: 'pl-4' },
  { label: 'PL-5', code: 'pl-5' },
];
