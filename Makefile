# The two commands: `make run` (set up and serve) and `make test` (the whole suite).
.PHONY: run test stop bench-layout bench-publish deploy-checks

run:
	scripts/run.sh

test:
	scripts/test.sh

stop:
	scripts/pg.sh stop .data/pg

bench-layout:
	scripts/bench-layout.sh

bench-publish:
	scripts/bench-publish.sh

# The files of deploy/ (Kubernetes manifests, Dockerfile, nginx, compose), without a database.
deploy-checks:
	scripts/deploy-checks.sh
