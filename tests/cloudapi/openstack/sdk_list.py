#!/usr/bin/python3
"""An independent OpenStack client for the simulator tests: python3-openstacksdk (Debian 0.101)
logs in to the simulated Keystone, lists servers through the simulated Nova and, when asked,
stops one. Prints one JSON document: {"servers": [{"id", "name", "status", "flavor"}...],
"stopped": <id or null>}.

usage: sdk_list.py AUTH_URL USERNAME PASSWORD PROJECT REGION [STOP_SERVER_ID]
"""
import json
import sys

import openstack


def main():
    auth_url, username, password, project, region = sys.argv[1:6]
    stop_id = sys.argv[6] if len(sys.argv) > 6 else None
    conn = openstack.connect(
        auth_url=auth_url,
        username=username,
        password=password,
        project_name=project,
        user_domain_name="Default",
        project_domain_name="Default",
        region_name=region,
        load_yaml_config=False,
        load_envvars=False,
    )
    servers = []
    for server in conn.compute.servers(details=True):
        flavor = server.flavor or {}
        servers.append({
            "id": server.id,
            "name": server.name,
            "status": server.status,
            "flavor": flavor.get("original_name") or flavor.get("name") or flavor.get("id"),
        })
    stopped = None
    if stop_id:
        conn.compute.stop_server(stop_id)
        stopped = stop_id
    print(json.dumps({"servers": servers, "stopped": stopped}))


if __name__ == "__main__":
    main()
