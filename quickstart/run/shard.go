package run

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tabwright/tabwright/quickstart/task"
)

// Shards split a suite over a CI matrix: qs run --shard I/N runs every Nth
// task starting at the Ith (in the order the tasks loaded), and records
// which shard it was and the whole task list, so qs report --merge can
// check that every shard is there once and put the tasks back in order.

// ShardInfo is results.json's record of a shard.
type ShardInfo struct {
	Index int      `json:"index"` // 1-based
	Count int      `json:"count"`
	Tasks []string `json:"tasks"` // every task of the unsharded suite, in order
}

// ParseShard reads "I/N" (1 <= I <= N).
func ParseShard(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("qs.shard: --shard %q: want I/N with 1 <= I <= N, such as 2/3", s)
	}
	return i, n, nil
}

// SelectShard returns shard i of n of tasks and its record.
func SelectShard(tasks []*task.Task, i, n int) ([]*task.Task, *ShardInfo) {
	info := &ShardInfo{Index: i, Count: n, Tasks: []string{}}
	var mine []*task.Task
	for k, t := range tasks {
		info.Tasks = append(info.Tasks, t.Name)
		if k%n == i-1 {
			mine = append(mine, t)
		}
	}
	return mine, info
}

// Merge joins the shards of one suite into the suite an unsharded run
// would have written: every run, the stats summarised again in the task
// order of the whole suite, the totals summed, the wall clock the longest
// shard's. Shards of different suites, a shard twice or one missing are
// refused.
func Merge(shards []*Suite) (*Suite, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("qs.merge: no results to merge")
	}
	first := shards[0].Shard
	if first == nil {
		return nil, fmt.Errorf("qs.merge: the first results were not written by qs run --shard")
	}
	seen := map[int]bool{}
	var runs []*AttemptResult
	merged := &Suite{}
	for k, s := range shards {
		sh := s.Shard
		switch {
		case sh == nil:
			return nil, fmt.Errorf("qs.merge: results %d were not written by qs run --shard", k+1)
		case sh.Count != first.Count || !slices.Equal(sh.Tasks, first.Tasks):
			return nil, fmt.Errorf("qs.merge: shard %d/%d is of another suite (other tasks or shard count) than shard %d/%d", sh.Index, sh.Count, first.Index, first.Count)
		case seen[sh.Index]:
			return nil, fmt.Errorf("qs.merge: shard %d/%d is given twice", sh.Index, sh.Count)
		}
		seen[sh.Index] = true
		for _, st := range s.Tasks {
			runs = append(runs, st.Runs...)
		}
		merged.Repeat = max(merged.Repeat, s.Repeat)
		merged.Workers = max(merged.Workers, s.Workers)
		merged.DurationSeconds = math.Max(merged.DurationSeconds, s.DurationSeconds)
		merged.Interrupted = merged.Interrupted || s.Interrupted
	}
	for i := 1; i <= first.Count; i++ {
		if !seen[i] {
			return nil, fmt.Errorf("qs.merge: shard %d/%d is missing; give every shard's results", i, first.Count)
		}
	}
	pos := map[string]int{}
	for i, name := range first.Tasks {
		if _, ok := pos[name]; !ok {
			pos[name] = i
		}
	}
	slices.SortStableFunc(runs, func(a, b *AttemptResult) int {
		if pa, pb := pos[a.Task], pos[b.Task]; pa != pb {
			return pa - pb
		}
		return a.Attempt - b.Attempt
	})
	s := Summarise(runs)
	s.Repeat, s.Workers, s.DurationSeconds, s.Interrupted = merged.Repeat, merged.Workers, merged.DurationSeconds, merged.Interrupted
	s.ToolVersion = shards[0].ToolVersion
	s.ExitCode = s.Exit(false)
	return s, nil
}
