// `node --import` this to make loading @kubernetes/client-node fail: a command that must not
// need it (the scaffold) is run under it.
import { register } from 'node:module';

register(
  'data:text/javascript,' +
    encodeURIComponent(
      "export async function resolve(specifier, context, next) { if (specifier === '@kubernetes/client-node' || specifier.startsWith('@kubernetes/client-node/')) throw new Error('@kubernetes/client-node was loaded'); return next(specifier, context); }",
    ),
);
