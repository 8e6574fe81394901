// The pinned AWS SDK runs on Node 20; its notice that releases after January 2027 need Node 22 is in the README.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
