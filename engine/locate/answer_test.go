package locate

import (
	"context"
	"testing"
	"time"
)

func TestAwaitAnswerOutlivesTheDeadlineNotACancel(t *testing.T) {
	dl := time.Now().Add(20 * time.Millisecond)
	ctx, cancel := context.WithDeadline(context.Background(), dl)
	defer cancel()
	answer, stop := awaitAnswer(ctx, dl)
	defer stop()
	<-ctx.Done()
	select {
	case <-answer.Done():
		t.Fatal("the answer's context ended with the caller's deadline")
	case <-time.After(answerGrace / 5):
	}
	if got, ok := answer.Deadline(); !ok || !got.Equal(dl.Add(answerGrace)) {
		t.Fatalf("answer deadline %v, want %v", got, dl.Add(answerGrace))
	}

	ctx2, cancel2 := context.WithCancel(context.Background())
	answer2, stop2 := awaitAnswer(ctx2, time.Now().Add(time.Minute))
	defer stop2()
	cancel2()
	select {
	case <-answer2.Done():
	case <-time.After(time.Second):
		t.Fatal("a cancelled caller did not end the answer's context")
	}
}
