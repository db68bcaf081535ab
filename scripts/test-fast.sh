#!/usr/bin/env bash
# make test-fast: the tier with no PostgreSQL, no server and no browser, run first by `make test`
# (a few seconds after a build): the editor's pure modules with Node's test runner, then the
# Swift suites that need no database: the domain (RiversCoreTests), layout (RiversLayoutTests),
# the use cases on in-memory repositories (RiversServicesTests),
# and the server's pure parts (the public path's connection state machine and request reader,
# its documents on an in-memory source, stored-text splicing, configuration). DATABASE_URL is
# unset here, so a suite listed below that touched the database would fail, not pass unnoticed.
# Arguments go to `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
unset DATABASE_URL RIVERS_API_RESPONSE_LOG
node --test Tests/js/
fast_suites='RiversCoreTests\.|RiversLayoutTests\.|RiversServicesTests\.|RiversServerTests\.(ContentRouterTests|PublishRouterTests|AppEventsRouterTests|OpenAPIContractTests|SessionRouterTests|TeamRouterTests|PublicConnectionTests|PublicDocumentRequestTests|PublishedDocumentsMemoryTests|RecordTextTests|ConfigurationTests)\b'
if [ "${RIVERS_SKIP_BUILD:-}" != 1 ]; then swift build --build-tests; fi
swift test --skip-build --filter "$fast_suites" "$@"
