#pragma once
// One registration function per resource; each registers literal URL patterns with their access.
#include "web/api.hpp"

namespace ironhold::web {

void register_health_routes(Api& api);
void register_meta_routes(Api& api);
void register_node_routes(Api& api);
void register_discovery_routes(Api& api);
void register_cloud_account_routes(Api& api);
void register_token_routes(Api& api);
void register_audit_routes(Api& api);
void register_export_routes(Api& api);
void register_console_routes(Api& api);
void register_session_routes(Api& api);
void register_hardware_routes(Api& api);
void register_node_polling_routes(Api& api);
void register_metrics_routes(Api& api);
void register_node_action_routes(Api& api);
void register_task_routes(Api& api);
void register_bulk_action_routes(Api& api);
void register_node_lifecycle_routes(Api& api);
void register_provisioning_routes(Api& api);
void register_firmware_image_routes(Api& api);
void register_rollout_routes(Api& api);
void register_firmware_baseline_routes(Api& api);
void register_bios_routes(Api& api);
void register_stream_routes(Api& api);
void register_user_routes(Api& api);
void register_project_routes(Api& api);
void register_alert_routes(Api& api);
void register_redfish_event_routes(Api& api);
void register_gpu_model_routes(Api& api);
void register_serial_console_routes(Api& api);
void register_capacity_routes(Api& api);
void register_price_routes(Api& api);
void register_cost_routes(Api& api);
void register_oidc_sign_in_routes(Api& api);

// Who a request acts as and what it may do where (GET /api/v1/session, GET /api/v1/whoami).
nlohmann::json identity_json(const RequestContext& ctx);

// The audit entry of a sign-in attempt (session.create), failed ones included, since sign-in is
// open to anyone: `via` is password, token, ldap or oidc; `tried` the name given when nobody is
// signed in yet; `directory` what the directory or identity provider said, or null.
asio::awaitable<void> audit_sign_in(Services& s, const RequestContext& ctx, int status,
                                    const std::string& reason, const std::string& tried,
                                    const std::string& via, const nlohmann::json& directory);

}  // namespace ironhold::web
