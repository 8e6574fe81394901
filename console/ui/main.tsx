/** The console's shell: header with Holdback's clock and the actor, navigation, and the page the address names. */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './console.css';
import { call } from './api';
import { indiaTime } from './format';
import { rememberCaller, storeActor, storedActor, type Caller } from './form';
import { ApprovalsPage } from './pages/approvals';
import { OverviewPage } from './pages/overview';
import { VendorsPage } from './pages/vendors';
import { VendorPage } from './pages/vendor';
import { OrderPage } from './pages/order';
import { OutcomesPage } from './pages/outcomes';
import { AuditPage } from './pages/audit';
import { SettingsPage } from './pages/settings';
import { AccuracyPage, RejectedEventsPage } from './pages/reports';
import { JobsPage } from './pages/jobs';
import { ApiReferencePage } from './pages/api-reference';

const NAV: Array<[string, string]> = [
  ['#/', 'Overview'],
  ['#/vendors', 'Vendors'],
  ['#/orders', 'Orders'],
  ['#/outcomes', 'Outcomes'],
  ['#/jobs', 'Jobs'],
  ['#/audit', 'Audit'],
  ['#/accuracy', 'Accuracy'],
  ['#/rejected', 'Rejected events'],
  ['#/approvals', 'Approvals'],
  ['#/settings', 'Settings'],
  ['#/api', 'API reference'],
];

/** The browser tab's title of a page: the page, what it shows, the console's name. */
function titleOf(route: string[]): string {
  const [area, id] = route;
  const page = NAV.find(([href]) => href === `#/${area ?? ''}`)?.[1] ?? (area === 'overview' ? 'Overview' : 'Not found');
  const what = id ? (area === 'vendors' ? `Vendor ${id}` : area === 'orders' ? `Order ${id}` : `${page} ${id}`) : page;
  return `${what} · Holdback console`;
}

/** The address after `#`, split into its parts: `#/vendors/v-1` -> ["vendors", "v-1"]. */
function useRoute(): string[] {
  const read = () => location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onChange = () => setRoute(read());
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

/** Holdback's own time (locally the shared clock, which tests and demos move), read every few seconds. */
function useHoldbackClock(): { now: string | null; problem: string | null } {
  const [state, setState] = useState<{ now: string | null; problem: string | null }>({ now: null, problem: null });
  useEffect(() => {
    let stopped = false;
    const read = () => call<{ now: string }>('GET', '/console/clock').then(
      (body) => !stopped && setState({ now: body.now, problem: null }),
      (error: Error) => !stopped && setState({ now: null, problem: error.message }),
    );
    void read();
    const timer = setInterval(read, 5000);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, []);
  return state;
}

/** Who the API takes this browser to be: a signed IAM principal (AWS, through the signing proxy) or nobody (locally). */
function useCaller(): Caller | null {
  const [caller, setCaller] = useState<Caller | null>(null);
  useEffect(() => {
    call<Caller>('GET', '/whoami').then((c) => {
      rememberCaller(c);
      setCaller(c);
    }, () => setCaller(null));
  }, []);
  return caller;
}

/** The console's name and Holdback's clock (locally the shared clock), at the top of every page. */
function BrandAndClock({ now, clockProblem }: { now: string | null; clockProblem: string | null }) {
  return (
    <>
      <p class="brand">Holdback console</p>
      <p class="clock" data-testid="clock" aria-live="off">
        Holdback time: <time dateTime={now ?? undefined}>{now ? indiaTime(now) : clockProblem ?? '…'}</time>
      </p>
    </>
  );
}

function Header({ now, clockProblem }: { now: string | null; clockProblem: string | null }) {
  const [actor, setActor] = useState(storedActor);
  const caller = useCaller();
  if (caller?.authenticated) {
    return (
      <header>
        <BrandAndClock now={now} clockProblem={clockProblem} />
        <p class="actor" data-testid="who-you-are">Signed in as <strong>{caller.name}</strong> <span class="hint">({caller.principal}, recorded with every change)</span></p>
      </header>
    );
  }
  return (
    <header>
      <BrandAndClock now={now} clockProblem={clockProblem} />
      <div class="field actor">
        <label for="actor">You (recorded as actor)</label>
        <input id="actor" data-testid="actor" value={actor} placeholder="name@example.com" autoComplete="email" onInput={(e) => {
          const value = (e.currentTarget as HTMLInputElement).value;
          setActor(value);
          storeActor(value);
        }} />
        <span class="hint" data-testid="who-you-are">unauthenticated: locally nobody signs in, so this name is taken as you say it (on AWS your IAM principal is recorded instead)</span>
      </div>
    </header>
  );
}

function Page({ route, now }: { route: string[]; now: string | null }) {
  const [area, id] = route;
  switch (area) {
    case undefined:
    case 'overview':
      return <OverviewPage now={now} />;
    case 'vendors':
      return id ? <VendorPage vendorId={id} /> : <VendorsPage />;
    case 'orders':
      return <OrderPage orderId={id} />;
    case 'outcomes':
      return <OutcomesPage />;
    case 'jobs':
      return <JobsPage />;
    case 'audit':
      return <AuditPage />;
    case 'settings':
      return <SettingsPage />;
    case 'approvals':
      return <ApprovalsPage />;
    case 'accuracy':
      return <AccuracyPage now={now} />;
    case 'rejected':
      return <RejectedEventsPage />;
    case 'api':
      return <ApiReferencePage />;
    default:
      return <p role="alert">No page "{area}". Choose one above.</p>;
  }
}

function App() {
  const route = useRoute();
  const clock = useHoldbackClock();
  const current = `#/${route[0] ?? ''}`;
  useEffect(() => { document.title = titleOf(route); }, [route.join('/')]);
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => { e.preventDefault(); document.getElementById('main')?.focus(); }}>Skip to the page</a>
      <Header now={clock.now} clockProblem={clock.problem} />
      <nav aria-label="Console pages">
        <ul>
          {NAV.map(([href, label]) => (
            <li key={href}><a href={href} aria-current={(current === href || (href === '#/' && current === '#/overview')) ? 'page' : undefined}>{label}</a></li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        <Page route={route} now={clock.now} />
      </main>
    </>
  );
}

const root = document.getElementById('app')!;
// The "Loading…" line is the server's; Preact does not take over children it did not render.
root.textContent = '';
render(<App />, root);
