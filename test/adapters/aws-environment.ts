/** The environment a deployed Lambda is given, for tests of the composition root's reading of it. */

/** Every variable the runtime requires on AWS, with gateway credentials in variables (`secret` as the client secret). */
export function awsEnvironment(secret: string) {
  return {
    AWS_REGION: 'ap-south-1',
    HOLDBACK_ORDERS_TABLE: 'orders-t',
    HOLDBACK_CONFIG_TABLE: 'config-t',
    HOLDBACK_REJECTED_TABLE: 'rejected-t',
    HOLDBACK_EVENT_BUS: 'holdback-bus',
    HOLDBACK_GATEWAY_BASE_URL: 'https://api.example.com',
    HOLDBACK_GATEWAY_CLIENT_ID: 'client_1',
    HOLDBACK_GATEWAY_CLIENT_SECRET: secret,
    HOLDBACK_RELEASE_QUEUE_ARN: 'arn:aws:sqs:ap-south-1:123456789012:holdback-releases',
    HOLDBACK_SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/scheduler',
    HOLDBACK_RELEASE_QUEUE_URL: 'https://sqs.ap-south-1.amazonaws.com/123456789012/holdback-releases',
  };
}
