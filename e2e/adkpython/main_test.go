package adkpython_test

import (
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

func TestMain(m *testing.M) { testutil.Main(m) }
