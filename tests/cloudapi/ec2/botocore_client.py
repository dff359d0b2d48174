#!/usr/bin/python3
"""An independent EC2 client for the simulator test: botocore itself, pointed at the simulator.

Input (JSON file named by the first argument): {"endpoint", "region", "access_key_id",
"secret_access_key", "page_size"}. It lists every instance with the DescribeInstances paginator,
stops the first running one, and prints JSON:
{"pages": N, "instances": [{"id", "state", "type", "name"}], "stopped": {"id", "current",
"previous"}}.
"""
import json
import sys

import botocore.config
import botocore.session


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        job = json.load(f)
    session = botocore.session.get_session()
    client = session.create_client(
        "ec2",
        region_name=job["region"],
        endpoint_url=job["endpoint"],
        aws_access_key_id=job["access_key_id"],
        aws_secret_access_key=job["secret_access_key"],
        config=botocore.config.Config(retries={"max_attempts": 1}),
    )
    instances = []
    pages = 0
    paginator = client.get_paginator("describe_instances")
    for page in paginator.paginate(PaginationConfig={"PageSize": job.get("page_size", 5)}):
        pages += 1
        for reservation in page["Reservations"]:
            for instance in reservation["Instances"]:
                name = next((t["Value"] for t in instance.get("Tags", []) if t["Key"] == "Name"), "")
                instances.append({
                    "id": instance["InstanceId"],
                    "state": instance["State"]["Name"],
                    "type": instance["InstanceType"],
                    "name": name,
                })
    out = {"pages": pages, "instances": instances}
    running = [i for i in instances if i["state"] == "running"]
    if running:
        answer = client.stop_instances(InstanceIds=[running[0]["id"]])
        change = answer["StoppingInstances"][0]
        out["stopped"] = {
            "id": change["InstanceId"],
            "current": change["CurrentState"]["Name"],
            "previous": change["PreviousState"]["Name"],
        }
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
