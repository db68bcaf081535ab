# The two commands: `make run` (set up and serve) and `make test` (the whole suite).
.PHONY: run test test-fast test-js test-faults test-contract stop bench-layout bench-publish bench-apps bench-api bench-together bench-memory deploy-checks

run:
	scripts/run.sh

test:
	scripts/test.sh

# The tier with no PostgreSQL, no server and no browser (also the first step of make test): the
# editor's pure modules, then the domain, layout and pure server suites. Builds first.
test-fast:
	scripts/test-fast.sh

# The editor's pure modules (Public/js) on their own, with Node's test runner (no browser, no server).
test-js:
	node --test Tests/js/

# Failover (issue 15): three servers behind nginx on a PostgreSQL of its own, killed and restarted
# under load (also the last step of make test). Uses the built server; builds nothing.
test-faults:
	scripts/fault-tests.sh

# The contract run with every phase, the coverage phase included (about 20 minutes a seed on
# 2 cores), for both seeds, each on a throwaway database of its own. Uses the built server.
test-contract:
	scripts/contract-tests.sh

stop:
	scripts/pg.sh stop .data/pg

bench-layout:
	scripts/bench-layout.sh

bench-publish:
	scripts/bench-publish.sh

bench-apps:
	scripts/bench-apps.sh

bench-api:
	scripts/bench-api.sh

# Live streams (issue 28): 200 streams of one app over 3 processes, a save's delivery p50/p99.
bench-together:
	scripts/bench-together.sh

# Memory (issue 26): peak RSS growth per stored byte while four clients read an app at the caps.
bench-memory:
	scripts/bench-memory.sh

# The files of deploy/ (Kubernetes manifests, Dockerfile, nginx, compose), without a database.
deploy-checks:
	scripts/deploy-checks.sh
