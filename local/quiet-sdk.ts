// The pinned AWS SDK supports the Node.js 20 these machines run (Lambda runs 22); its notice about
// future releases needing Node 22 is noise in a developer's terminal. Imported first by the local CLIs.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
