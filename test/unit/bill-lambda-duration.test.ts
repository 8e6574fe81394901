/**
 * The bill's Lambda duration (issue 18 item 5): a function's own computing is billed as the time it takes at the share
 * of a vCPU its memory buys (one vCPU at 1,769 MB), and its waits on AWS calls at their in-region latency.
 */
import { EXTRA_PRICES, lambdaComputeMs } from '../../bench/aws-prices';
import { modelledGbSeconds } from '../../bench/whole-bill';

test('CPU milliseconds are stretched by the fraction of a vCPU the memory gets, and never shortened above 1,769 MB', () => {
  expect(EXTRA_PRICES.lambdaOneVcpuAtMb).toBe(1769);
  // 512 MB is 512/1769 = 0.289 of a vCPU: 100 ms of CPU take 345.5 ms.
  expect(lambdaComputeMs(100, 512)).toBeCloseTo(345.51, 2);
  expect(lambdaComputeMs(100, 128)).toBeCloseTo(1382.03, 2);
  expect(lambdaComputeMs(100, 1769)).toBe(100);
  expect(lambdaComputeMs(100, 3008)).toBe(100);
});

test('waits are billed at the services\' latencies and the memory size, per GB-second', () => {
  // 2 DynamoDB calls (6 ms each) and 1 gateway send (250 ms) at 512 MB: 262 ms = 0.131 GB-s.
  const billed = modelledGbSeconds({ DynamoDB: 2 }, 1, 0, 512);
  expect(billed.ms).toBe(262);
  expect(billed.gbSeconds).toBeCloseTo(0.131, 6);
});
