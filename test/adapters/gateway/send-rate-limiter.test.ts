/** The client-side gateway limit: a send occupies its slot until 60 s after its answer, so the gateway's window never sees more. */
import { SendRateLimiter } from '../../../functions/adapters/gateway/send-rate-limiter';

describe('SendRateLimiter', () => {
  let now = 0;
  const sleeps: number[] = [];
  const limiter = () => new SendRateLimiter(2, async (ms) => { sleeps.push(ms); now += ms; }, () => now);

  beforeEach(() => {
    now = 1_000_000;
    sleeps.length = 0;
  });

  test('a slot frees 60 s after its answer came back, not after it was taken', async () => {
    const limit = limiter();
    const first = await limit.acquire(now);
    const second = await limit.acquire(now);
    if (!first.ok || !second.ok) throw new Error('two slots of two');
    // Both sends still waiting for their answers: nothing can free within a minute.
    expect(await limit.acquire(now + 5_000)).toEqual({ ok: false, waitMs: 60_000 });
    // The first answer takes 3 s (a slow gateway): its slot frees at 3 s + 60 s, not at 60 s.
    now += 3_000;
    first.answered();
    now += 1_000;
    expect(await limit.acquire(now)).toEqual({ ok: false, waitMs: 59_000 });
    const third = await limit.acquire(now + 59_000);
    expect(third.ok).toBe(true);
    expect(sleeps).toEqual([59_000]);
    // Answering twice frees nothing more.
    first.answered();
    second.answered();
    expect((await limit.acquire(now)).ok).toBe(false);
  });
});
