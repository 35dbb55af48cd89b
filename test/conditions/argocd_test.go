package conditions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	webappstatus "github.com/webapp-operator/webapp-operator/internal/status"
	"github.com/webapp-operator/webapp-operator/test/framework"
)

// argoHealth is the Argo CD health status that each kstatus verdict must read as.
var argoHealth = map[string]string{"Current": "Healthy", "InProgress": "Progressing", "Failed": "Degraded"}

// runHealthCheck runs config/argocd/health.lua on u the way Argo CD runs a health check from
// argocd-cm: gopher-lua (the interpreter Argo CD embeds) without its standard libraries but the base,
// table and package ones, the object as the global obj (maps and lists as tables, numbers as Lua
// numbers), and a table {status, message} as the result.
func runHealthCheck(t *testing.T, u *unstructured.Unstructured) (status, message string) {
	t.Helper()
	framework.KeyCacheOnSources() // config/ is outside the test module
	script, err := os.ReadFile(filepath.Join("..", "..", "config", "argocd", "health.lua"))
	if err != nil {
		t.Fatal(err)
	}
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	for name, open := range map[string]lua.LGFunction{
		lua.LoadLibName: lua.OpenPackage, lua.BaseLibName: lua.OpenBase, lua.TabLibName: lua.OpenTable,
	} {
		if err := l.CallByParam(lua.P{Fn: l.NewFunction(open), Protect: true}, lua.LString(name)); err != nil {
			t.Fatal(err)
		}
	}
	l.SetGlobal("obj", toLua(l, u.Object))
	if err := l.DoString(string(script)); err != nil {
		t.Fatalf("health.lua: %v", err)
	}
	result, ok := l.Get(-1).(*lua.LTable)
	if !ok {
		t.Fatalf("health.lua returned %s, want a table", l.Get(-1).Type())
	}
	return lua.LVAsString(result.RawGetString("status")), lua.LVAsString(result.RawGetString("message"))
}

// toLua converts an unstructured value into Lua values as Argo CD does.
func toLua(l *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case bool:
		return lua.LBool(v)
	case string:
		return lua.LString(v)
	case int64:
		return lua.LNumber(v)
	case float64:
		return lua.LNumber(v)
	case []any:
		t := l.CreateTable(len(v), 0)
		for _, item := range v {
			t.Append(toLua(l, item))
		}
		return t
	case map[string]any:
		t := l.CreateTable(0, len(v))
		for k, item := range v {
			t.RawSetString(k, toLua(l, item))
		}
		return t
	}
	return lua.LNil
}

func TestArgoCDHealthCheckReadsEveryReasonAsKstatusDoes(t *testing.T) {
	rows := readTable(t)
	obs := observations(newApp())
	for _, reason := range webappstatus.ReadyReasons {
		t.Run(reason, func(t *testing.T) {
			_, u := withStatus(t, obs[reason])
			status, message := runHealthCheck(t, u)
			if want := argoHealth[rows[reason].kstatus]; status != want {
				t.Errorf("health.lua says %s (%s); kstatus says %s, which Argo CD shows as %s",
					status, message, rows[reason].kstatus, want)
			}
			if !strings.HasPrefix(message, reason) {
				t.Errorf("message %q does not start with the reason %s", message, reason)
			}
		})
	}
}

func TestArgoCDHealthCheckWaitsForTheOperator(t *testing.T) {
	app, u := withStatus(t, observations(newApp())[webappstatus.ReasonReady])
	u.SetGeneration(app.Generation + 1)
	if status, message := runHealthCheck(t, u); status != "Progressing" || !strings.Contains(message, "generation 4") {
		t.Errorf("a Ready status of an older generation reads %s (%s), want Progressing", status, message)
	}
	unstructured.RemoveNestedField(u.Object, "status")
	if status, _ := runHealthCheck(t, u); status != "Progressing" {
		t.Errorf("a WebApp with no status reads %s, want Progressing", status)
	}
}
