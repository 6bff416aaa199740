// A v1.0 client (the Go SDK, a2a-go v2) drives the expense approval and every task call through the gateway.
//
// Usage: go-client AGENT_URL BINDING(JSONRPC|HTTP+JSON|GRPC) STREAMING(0|1) API_KEY
// It reads the card, authenticates as its security schemes say (the SDK's AuthInterceptor), and prints
// one JSON line with what it saw, in the shape test/support/interop/foreign-clients.ts expects.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"github.com/a2aproject/a2a-go/v2/a2apb/v1/pbconv"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/encoding/protojson"
)

const expenseRequest = "Please approve an expense of 120 USD for a team lunch"

type seen struct {
	ID, ContextID string
	State         a2a.TaskState
}

func (s seen) TaskInfo() a2a.TaskInfo {
	return a2a.TaskInfo{TaskID: a2a.TaskID(s.ID), ContextID: s.ContextID}
}

func main() {
	if err := run(os.Args[1], a2a.TransportProtocol(os.Args[2]), os.Args[3] == "1", os.Args[4]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(agentURL string, binding a2a.TransportProtocol, streaming bool, apiKey string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resolver := &agentcard.Resolver{CardParser: proto3JSONCard}
	card, err := resolver.Resolve(ctx, agentURL)
	if err != nil {
		return fmt.Errorf("card: %w", err)
	}
	// The key goes to every scheme the card names: the interceptor places it as the scheme says.
	keys := a2aclient.NewInMemoryCredentialsStore()
	for name := range card.SecuritySchemes {
		keys.Set("session", name, a2aclient.AuthCredential(apiKey))
	}
	ctx = a2aclient.AttachSessionID(ctx, "session")
	client, err := a2aclient.NewFromCard(ctx, card,
		a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []a2a.TransportProtocol{binding}}),
		a2agrpc.WithGRPCTransport(grpc.WithTransportCredentials(insecure.NewCredentials())),
		a2aclient.WithCallInterceptors(&a2aclient.AuthInterceptor{Service: keys}),
	)
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}
	defer client.Destroy()
	send := func(message *a2a.Message) (seen, error) { return lastTask(ctx, client, streaming, message) }

	waiting, err := send(a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(expenseRequest)))
	if err != nil {
		return fmt.Errorf("send: %w", err)
	}
	done, err := send(a2a.NewMessageForTask(a2a.MessageRoleUser, waiting, a2a.NewTextPart("approve")))
	if err != nil {
		return fmt.Errorf("answer: %w", err)
	}
	history := 10
	fetched, err := client.GetTask(ctx, &a2a.GetTaskRequest{ID: a2a.TaskID(done.ID), HistoryLength: &history})
	if err != nil {
		return fmt.Errorf("GetTask: %w", err)
	}
	listed, err := listedSoon(ctx, client, done.ContextID)
	if err != nil {
		return fmt.Errorf("ListTasks: %w", err)
	}
	taskID := a2a.TaskID(done.ID)
	created, err := client.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: taskID, ID: "hook", URL: "https://example.com/hook"})
	if err != nil {
		return fmt.Errorf("CreateTaskPushConfig: %w", err)
	}
	read, err := client.GetTaskPushConfig(ctx, &a2a.GetTaskPushConfigRequest{TaskID: taskID, ID: "hook"})
	if err != nil {
		return fmt.Errorf("GetTaskPushConfig: %w", err)
	}
	configs, err := client.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: taskID})
	if err != nil {
		return fmt.Errorf("ListTaskPushConfigs: %w", err)
	}
	if err := client.DeleteTaskPushConfig(ctx, &a2a.DeleteTaskPushConfigRequest{TaskID: taskID, ID: "hook"}); err != nil {
		return fmt.Errorf("DeleteTaskPushConfig: %w", err)
	}
	afterDelete, err := client.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: taskID})
	if err != nil {
		return fmt.Errorf("ListTaskPushConfigs after delete: %w", err)
	}
	other, err := send(a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(expenseRequest)))
	if err != nil {
		return fmt.Errorf("send another: %w", err)
	}
	var subscribed *a2a.TaskState
	if streaming {
		// SubscribeToTask streams: its first event is the task; the task still waits, so stop there.
		for event, err := range client.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: a2a.TaskID(other.ID)}) {
			if err != nil {
				return fmt.Errorf("SubscribeToTask: %w", err)
			}
			if task, ok := event.(*a2a.Task); ok {
				subscribed = &task.Status.State
			}
			break
		}
	}
	canceled, err := client.CancelTask(ctx, &a2a.CancelTaskRequest{ID: a2a.TaskID(other.ID)})
	if err != nil {
		return fmt.Errorf("CancelTask: %w", err)
	}

	schemes := []string{}
	for name := range card.SecuritySchemes {
		schemes = append(schemes, string(name))
	}
	slices.Sort(schemes)
	artifacts := []string{}
	for _, artifact := range fetched.Artifacts {
		artifacts = append(artifacts, artifact.Name)
	}
	listedDone := []bool{}
	for _, task := range listed.Tasks {
		listedDone = append(listedDone, string(task.ID) == done.ID)
	}
	configIDs := []string{}
	for _, config := range configs {
		configIDs = append(configIDs, config.ID)
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"securitySchemes": schemes,
		"first":           waiting.State,
		"second":          done.State,
		"sameTask":        waiting.ID == done.ID,
		"getTask":         []any{fetched.Status.State, artifacts},
		"listTasks":       listedDone,
		"pushConfigs":     []any{created.ID, read.URL, configIDs, len(afterDelete)},
		"subscribe":       subscribed,
		"cancel":          canceled.Status.State,
	})
}

// proto3JSONCard reads the card as the proto3 JSON of a2a.proto's AgentCard, as the specification says
// cards are written, refusing unknown fields. a2a-go's default parser (v2.3.1) reads a security
// requirement's scopes as a bare list (`"apiKey": []`) where a2a.proto has a StringList message
// (`"apiKey": {"list": []}`), and so cannot read a card with security requirements in proto3 JSON.
func proto3JSONCard(body []byte) (*a2a.AgentCard, error) {
	var card a2apb.AgentCard
	if err := protojson.Unmarshal(body, &card); err != nil {
		return nil, err
	}
	return pbconv.FromProtoAgentCard(&card)
}

// lastTask sends the message and returns the task as the answer's last event tells it.
func lastTask(ctx context.Context, client *a2aclient.Client, streaming bool, message *a2a.Message) (seen, error) {
	request := &a2a.SendMessageRequest{Message: message}
	if !streaming {
		result, err := client.SendMessage(ctx, request)
		if err != nil {
			return seen{}, err
		}
		task, ok := result.(*a2a.Task)
		if !ok {
			return seen{}, fmt.Errorf("answered %T, not a task", result)
		}
		return seen{string(task.ID), task.ContextID, task.Status.State}, nil
	}
	var last seen
	for event, err := range client.SendStreamingMessage(ctx, request) {
		if err != nil {
			return seen{}, err
		}
		switch e := event.(type) {
		case *a2a.Task:
			last = seen{string(e.ID), e.ContextID, e.Status.State}
		case *a2a.TaskStatusUpdateEvent:
			last.State = e.Status.State
		}
	}
	return last, nil
}

// listedSoon asks ListTasks of the context again for a while: the gateway's listing lags by a second or so.
func listedSoon(ctx context.Context, client *a2aclient.Client, contextID string) (*a2a.ListTasksResponse, error) {
	for range 50 {
		listed, err := client.ListTasks(ctx, &a2a.ListTasksRequest{ContextID: contextID})
		if err != nil || len(listed.Tasks) > 0 {
			return listed, err
		}
		time.Sleep(200 * time.Millisecond)
	}
	return client.ListTasks(ctx, &a2a.ListTasksRequest{ContextID: contextID})
}
