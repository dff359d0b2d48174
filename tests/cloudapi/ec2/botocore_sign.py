#!/usr/bin/python3
"""Oracle for the EC2 tests: botocore's own answers, computed at test time.

Input: a JSON object {"sign": [...], "serialize": [...]}, from the file named by the first argument,
or from stdin when there is none.
  sign items: {"method", "url", "body", "headers": [[name, value], ...], "access_key_id",
               "secret_access_key", "session_token" (optional), "region", "timestamp"
               ("YYYYMMDDTHHMMSSZ")}; each is signed with botocore.auth.SigV4Auth (service ec2)
               at that fixed time.
  serialize items: {"operation", "params"} (botocore's Python names, e.g. DescribeInstances with
               {"Filters": [...]}); each is turned into the EC2 Query form by botocore's own
               serializer and its service model.
stdout: {"sign": [{"authorization", "x_amz_date", "x_amz_security_token"}],
         "serialize": [{"params": {name: value}}]}
"""
import datetime
import json
import sys
import types

import botocore.auth
import botocore.awsrequest
import botocore.credentials
import botocore.serialize
import botocore.session


def fixed_datetime_module(when):
    class FixedDatetime(datetime.datetime):
        @classmethod
        def utcnow(cls):
            return when

    return types.SimpleNamespace(datetime=FixedDatetime)


def sign(item):
    when = datetime.datetime.strptime(item["timestamp"], "%Y%m%dT%H%M%SZ")
    botocore.auth.datetime = fixed_datetime_module(when)
    credentials = botocore.credentials.Credentials(
        item["access_key_id"], item["secret_access_key"], item.get("session_token"))
    request = botocore.awsrequest.AWSRequest(
        method=item["method"], url=item["url"], data=item["body"].encode("utf-8"))
    for name, value in item["headers"]:
        request.headers[name] = value
    botocore.auth.SigV4Auth(credentials, "ec2", item["region"]).add_auth(request)
    return {
        "authorization": request.headers["Authorization"],
        "x_amz_date": request.headers["X-Amz-Date"],
        "x_amz_security_token": request.headers.get("X-Amz-Security-Token"),
    }


def serialize(item, model):
    operation = model.operation_model(item["operation"])
    serializer = botocore.serialize.create_serializer("ec2")
    request = serializer.serialize_to_request(item["params"], operation)
    return {"params": {k: str(v) for k, v in request["body"].items()}}


def main():
    if len(sys.argv) > 1:
        with open(sys.argv[1], encoding="utf-8") as f:
            job = json.load(f)
    else:
        job = json.load(sys.stdin)
    model = botocore.session.get_session().get_service_model("ec2")
    out = {
        "sign": [sign(item) for item in job.get("sign", [])],
        "serialize": [serialize(item, model) for item in job.get("serialize", [])],
    }
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
