/** What the hosted checkout offers an order (1.2: every option shown automatically to eligible customers). */
import Decimal from 'decimal.js';
import { plansForAmount, type Catalogue, type EmiIssuer, type EmiPlan } from './catalogue';
import { monthlyInstalment } from './instalment';

export interface PlanOption {
  /** The checkout form value: family|code|tenure. */
  value: string;
  tenure: number;
  annualRate: string;
  type: string;
  monthly: string;
  total: string;
}

export interface IssuerOption {
  label: string;
  code: string;
  plans: PlanOption[];
}

export interface CheckoutOptions {
  credit: IssuerOption[];
  debit: IssuerOption[];
  /** Cardless providers without plans (PROV-A/B/C) and those with plans (8.3). */
  cardless: Array<IssuerOption & { minAmount: string | null }>;
  payLater: Array<{ label: string; code: string; value: string }>;
  upi: boolean;
  netbanking: boolean;
}

export interface CheckoutCustomer {
  amount: Decimal;
  tpvEnabled: boolean;
  /** Whether the customer's phone is pre-approved for debit card EMI (8.2). */
  debitPreApproved: boolean;
  /** order_meta.payment_methods, comma separated; null for all. */
  paymentMethods: string | null;
}

/** order_meta.payment_methods codes and the families they open. */
const METHOD_FAMILIES: Record<string, Array<keyof Omit<CheckoutOptions, 'upi' | 'netbanking'> | 'upi' | 'netbanking'>> = {
  emi: ['credit', 'debit'],
  ccemi: ['credit'],
  dcemi: ['debit'],
  cardlessemi: ['cardless'],
  paylater: ['payLater'],
  upi: ['upi'],
  nb: ['netbanking'],
  netbanking: ['netbanking'],
};

function planOptions(family: string, issuer: EmiIssuer, amount: Decimal): PlanOption[] {
  return plansForAmount(issuer, amount).map((plan: EmiPlan) => {
    const monthly = monthlyInstalment(amount, plan.annualRate, plan.tenure);
    return {
      value: `${family}|${issuer.code}|${plan.tenure}`,
      tenure: plan.tenure,
      annualRate: plan.annualRate,
      type: plan.type,
      monthly,
      total: new Decimal(monthly).mul(plan.tenure).toFixed(2),
    };
  });
}

function issuerOptions(family: string, issuers: Iterable<EmiIssuer>, amount: Decimal): IssuerOption[] {
  return [...issuers]
    .map((issuer) => ({ label: issuer.label, code: issuer.code, plans: planOptions(family, issuer, amount) }))
    .filter((option) => option.plans.length > 0);
}

export function checkoutOptions(catalogue: Catalogue, customer: CheckoutCustomer): CheckoutOptions {
  const { amount } = customer;
  const allowed = (family: string): boolean => {
    // TPV can only verify UPI and net banking payments against the customer's account.
    if (customer.tpvEnabled && family !== 'upi' && family !== 'netbanking') return false;
    if (!customer.paymentMethods) return true;
    const codes = customer.paymentMethods.split(',').map((c) => c.trim().toLowerCase()).filter((c) => c in METHOD_FAMILIES);
    return codes.length === 0 || codes.some((c) => (METHOD_FAMILIES[c] as string[]).includes(family));
  };
  const cardlessProviders = [...catalogue.cardlessProviders.values()]
    .filter((p) => p.minAmount === null || amount.gte(p.minAmount))
    .map((p) => ({ label: p.label, code: p.code, minAmount: p.minAmount, plans: [] as PlanOption[] }));
  const cardlessPlans = issuerOptions('cardless', catalogue.cardlessPlans.values(), amount).map((o) => ({ ...o, minAmount: null }));
  return {
    credit: allowed('credit') ? issuerOptions('credit', catalogue.credit.values(), amount) : [],
    debit: allowed('debit') && customer.debitPreApproved ? issuerOptions('debit', catalogue.debit.values(), amount) : [],
    cardless: allowed('cardless') ? [...cardlessProviders, ...cardlessPlans] : [],
    payLater: allowed('payLater') ? [...catalogue.payLater.values()].map((p) => ({ label: p.label, code: p.code, value: `paylater|${p.code}` })) : [],
    upi: allowed('upi'),
    netbanking: allowed('netbanking'),
  };
}
