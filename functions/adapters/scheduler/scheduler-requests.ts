/**
 * EventBridge Scheduler's CreateSchedule and DeleteSchedule over its REST-JSON API (`POST /schedules/{Name}` with the
 * schedule as JSON, `DELETE /schedules/{Name}?groupName=&clientToken=`), as the SDK's Scheduler client sends them,
 * signed by the SDK's own SigV4 signer (aws-http/signed-request.ts says why there is no SDK client here). As the SDK's
 * client does, each call carries a fresh idempotency token where the caller gives none, and an error carries
 * Scheduler's own message under its code as name (ConflictException, ResourceNotFoundException, ValidationException:
 * the scheduler adapter reads them).
 */
import { randomUUID } from 'node:crypto';
import type { CreateScheduleCommandInput } from '@aws-sdk/client-scheduler';
import { SignedRequests, type AwsTarget } from '../aws-http/signed-request';
import { CallStack } from '../aws-http/call-stack';
import type { ScheduleCalls } from './eventbridge-release-scheduler';

/** A schedule's name as a path segment: encodeURIComponent and `!'()*` too, as the SDK encodes a label. */
const segment = (name: string): string => encodeURIComponent(name).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export class SchedulerRequests implements ScheduleCalls {
  /** The bench's call meter hooks in here (aws-http/call-stack.ts). */
  readonly middlewareStack = new CallStack();
  /** Its signed requests (a client hook may carry them another way: SignedRequests.transport). */
  readonly http: SignedRequests;

  constructor(target: AwsTarget) {
    this.http = new SignedRequests('scheduler', target, `scheduler.${target.region}.amazonaws.com`, { sdkMessages: true });
  }

  createSchedule(input: CreateScheduleCommandInput): Promise<unknown> {
    return this.middlewareStack.call('CreateSchedule', input, ({ Name, ...schedule }) =>
      this.http.restJson('Scheduler CreateSchedule', 'POST', `/schedules/${segment(Name!)}`, {}, { ...schedule, ClientToken: schedule.ClientToken ?? randomUUID() }));
  }

  deleteSchedule(input: { Name: string; GroupName?: string; ClientToken?: string }): Promise<unknown> {
    return this.middlewareStack.call('DeleteSchedule', input, ({ Name, GroupName, ClientToken }) =>
      this.http.restJson('Scheduler DeleteSchedule', 'DELETE', `/schedules/${segment(Name)}`, { ...(GroupName ? { groupName: GroupName } : {}), clientToken: ClientToken ?? randomUUID() }));
  }
}
