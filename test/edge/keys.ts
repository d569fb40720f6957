/** API keys of the edge tests and the tenancy each is bound to (the config hashes them into API_KEYS). */
export const TEST_TENANCIES = {
  acme: { key: 'edge-test-key-acme', app_id: 'acme', project_id: 'prod' },
  beta: { key: 'edge-test-key-beta', app_id: 'beta', project_id: 'prod' },
  acmeStaging: { key: 'edge-test-key-acme-staging', app_id: 'acme', project_id: 'staging' },
  plain: { key: 'edge-test-key-default', app_id: 'default', project_id: 'default' },
} as const;
