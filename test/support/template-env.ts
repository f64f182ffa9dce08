// e2e-template only: startLocalApi() serves the bundles of cdk.out through the template-driven server.
process.env.LOCAL_API = 'template';
