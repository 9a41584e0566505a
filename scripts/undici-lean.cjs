'use strict';
// What src/ takes from undici, from undici's own modules, for the bundle (scripts/bundle.mjs):
// its index also loads fetch, WebSocket, EventSource, caches and mocks, half of each bundle and
// a share of each process's start. The same classes; request() is the dispatchers' own.
const Dispatcher = require('undici/lib/dispatcher/dispatcher');
const api = require('undici/lib/api');
const { getGlobalDispatcher } = require('undici/lib/global');

// undici's index puts the request API on every dispatcher this way.
Object.assign(Dispatcher.prototype, api);

/** request(url, options) as src/ calls it: on options.dispatcher, else the global one, origin and path from the URL. */
function request(url, options = {}) {
  const { dispatcher = getGlobalDispatcher(), ...rest } = options;
  const target = new URL(url);
  return dispatcher.request({ ...rest, origin: target.origin, path: `${target.pathname}${target.search}` });
}

module.exports = {
  Agent: require('undici/lib/dispatcher/agent'),
  Pool: require('undici/lib/dispatcher/pool'),
  buildConnector: require('undici/lib/core/connect'),
  request,
};
