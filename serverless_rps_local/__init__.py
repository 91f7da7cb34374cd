"""The local stack: play serverless-rps without an AWS or a Twilio account (docs/local.md).

A development package beside `serverless_rps`: it is never deployed (`sam build` packages only
the runtime modules, function-code/Makefile), so nothing here may be imported by a handler.

* `stack` - everything below, started and stopped together; `cli` (`python -m serverless_rps`)
  drives it.
* `template` - reads template.yaml, so local tables, queues and settings match the deployed ones.
* `aws` - moto's server (DynamoDB, SQS, SSM) in its own process, one request at a time
  (`serialized_moto`), and the template's resources created in it.
* `dynamodb_local` - DynamoDB Local, AWS's own engine, for the tables instead (`DYNAMODB=local`).
* `lambda_runtime` - runs a real handler in worker processes, cold starts, timeouts and all.
* `event_source` - drives the game function the way Lambda's SQS event source does.
* `api_gateway` - an HTTP request becomes an HTTP API (payload 2.0) event for the webhook.
* `twilio_api` - a Twilio-compatible Messages API that records outbound SMS.
* `simulator` (+ `simulator.html`) - phones that text the webhook with signed requests; the page.
* `operator_panel` - queue depth, dead letters, locks held, recent errors, for the page.
* `saved_state` - the state kept between runs in `.local-state/`.
* `invoke`, `event_files` - running a function on the files in events/, and writing those files.
* `dev_account` - the made-up Twilio account and numbers; `http_server` - a background WSGI server.
"""
