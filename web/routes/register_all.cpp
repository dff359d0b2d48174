#include "web/routes/routes.hpp"

namespace ironhold::web {

void register_all_routes(Api& api) {
  register_health_routes(api);
  register_meta_routes(api);
  register_node_routes(api);
  register_node_action_routes(api);
  register_task_routes(api);
  register_bulk_action_routes(api);
  register_node_lifecycle_routes(api);
  register_discovery_routes(api);
  register_cloud_account_routes(api);
  register_hardware_routes(api);
  register_node_polling_routes(api);
  register_token_routes(api);
  register_audit_routes(api);
  register_export_routes(api);
  register_console_routes(api);
  register_session_routes(api);
  register_metrics_routes(api);
  register_provisioning_routes(api);
  register_firmware_image_routes(api);
  register_rollout_routes(api);
  register_firmware_baseline_routes(api);
  register_bios_routes(api);
  register_stream_routes(api);
  register_user_routes(api);
  register_project_routes(api);
  register_alert_routes(api);
  register_redfish_event_routes(api);
  register_gpu_model_routes(api);
  register_capacity_routes(api);
  register_price_routes(api);
  register_cost_routes(api);
  register_oidc_sign_in_routes(api);
  register_serial_console_routes(api);
}

}  // namespace ironhold::web
