-- Argo CD health check for apps.webapp-operator.io/WebApp. Install it under the argocd-cm key
-- resource.customizations.health.apps.webapp-operator.io_WebApp (docs/conditions.md, "Argo CD").
-- It reads the status the way kstatus does (what Flux and Helm 4 use), so Argo CD, kubectl wait and
-- Flux agree: a status for an older generation or Reconciling=True is Progressing, Stalled=True is
-- Degraded, Ready=True is Healthy. Argo CD runs it without Lua's string library: only the base
-- library is used.
local hs = { status = "Progressing", message = "waiting for the operator to report a status" }
if obj.status == nil or obj.status.conditions == nil then
  return hs
end
if obj.status.observedGeneration ~= obj.metadata.generation then
  hs.message = "waiting for the operator to observe generation " .. tostring(obj.metadata.generation)
  return hs
end
local found = {}
for _, c in ipairs(obj.status.conditions) do
  found[c.type] = c
end
local function describe(c)
  if c.message == nil or c.message == "" then
    return c.reason
  end
  return c.reason .. ": " .. c.message
end
local reconciling, stalled, ready = found["Reconciling"], found["Stalled"], found["Ready"]
if reconciling ~= nil and reconciling.status == "True" then
  hs.message = describe(reconciling)
  return hs
end
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = describe(stalled)
  return hs
end
if ready ~= nil then
  hs.message = describe(ready)
  if ready.status == "True" then
    hs.status = "Healthy"
  end
end
return hs
