%% Erlang peer of the actor benchmark (bench/actors/run.sh): the same
%% workloads as ../wo/*.wo, with processes as actors.
%%
%%   erl -noshell -pa DIR -run actors main WORKLOAD [ARGS]
%%   WORKLOAD: pingpong N | oneway N | ring NODES LAPS | skynet SIZE |
%%             spawn N | pairs P N
%%
%% Prints "ok OPS USEC" (operations done, microseconds they took) or, on a
%% wrong total, a FAIL line on stderr and exit status 1.
-module(actors).
-export([main/1]).

main([W | Args]) ->
    Ns = [list_to_integer(A) || A <- Args],
    {Ops, Us} = run(W, Ns),
    io:format("ok ~b ~b~n", [Ops, Us]),
    halt(0).

fail(Fmt, Args) ->
    io:format(standard_error, "erlang: FAIL: " ++ Fmt ++ "~n", Args),
    halt(1).

arg([], Dflt) -> {Dflt, []};
arg([N | Rest], _) -> {N, Rest}.

now_us() -> erlang:monotonic_time(microsecond).

run("pingpong", A) -> {N, _} = arg(A, 1000000), pingpong(N);
run("oneway", A) -> {N, _} = arg(A, 2000000), oneway(N);
run("ring", A) -> {Nodes, B} = arg(A, 1000), {Laps, _} = arg(B, 1000), ring(Nodes, Laps);
run("skynet", A) -> {S, _} = arg(A, 1000000), skynet(S);
run("spawn", A) -> {N, _} = arg(A, 100000), spawn_idle(N);
run("pairs", A) -> {P, B} = arg(A, 4), {N, _} = arg(B, 250000), pairs(P, N);
run(W, _) -> fail("unknown workload ~s", [W]).

%% pingpong: N round trips, gen_server:call style: the request carries the
%% caller and a fresh reference, the reply is matched on that reference.
ponger() ->
    receive
        {call, From, Ref, V} -> From ! {Ref, V + 1}, ponger();
        stop -> ok
    end.

call(Pid, V) ->
    Ref = make_ref(),
    Pid ! {call, self(), Ref, V},
    receive {Ref, R} -> R end.

calls(_, I, N, Sum) when I >= N -> Sum;
calls(Pid, I, N, Sum) -> calls(Pid, I + 1, N, Sum + call(Pid, I)).

pingpong(N) ->
    P = spawn(fun ponger/0),
    T0 = now_us(),
    Sum = calls(P, 0, N, 0),
    Us = now_us() - T0,
    P ! stop,
    Sum =:= N * (N + 1) div 2 orelse fail("pingpong: sum of replies ~b, expected ~b", [Sum, N * (N + 1) div 2]),
    {N, Us}.

%% oneway: N sends into one receiver, then a final message asking for its
%% count and total.
sink(Count, Total) ->
    receive
        {hit, V} -> sink(Count + 1, Total + V);
        {done, From} -> From ! {sink, Count, Total}
    end.

sends(_, I, N) when I >= N -> ok;
sends(S, I, N) -> S ! {hit, I}, sends(S, I + 1, N).

oneway(N) ->
    Self = self(),
    S = spawn(fun() -> sink(0, 0) end),
    T0 = now_us(),
    sends(S, 0, N),
    S ! {done, Self},
    receive {sink, Count, Total} -> ok end,
    Us = now_us() - T0,
    (Count =:= N andalso Total =:= N * (N - 1) div 2) orelse
        fail("oneway: sink took ~b messages summing to ~b, expected ~b and ~b", [Count, Total, N, N * (N - 1) div 2]),
    {N, Us}.

%% ring: NODES processes, each forwarding the token to the next, LAPS times
%% round; every node stops after LAPS tokens and reports how many it saw.
ring_node(Parent, Laps) ->
    receive {next, Next} -> ring_loop(Parent, Next, Laps, 0) end.

ring_loop(Parent, _, Laps, Seen) when Seen >= Laps -> Parent ! {seen, Seen};
ring_loop(Parent, Next, Laps, Seen) ->
    receive
        {token, T} ->
            T > 0 andalso (Next ! {token, T - 1}),
            ring_loop(Parent, Next, Laps, Seen + 1)
    end.

collect_seen(0, _, Total) -> Total;
collect_seen(K, Laps, Total) ->
    receive
        {seen, C} ->
            C =:= Laps orelse fail("ring: a node saw ~b tokens, expected ~b", [C, Laps]),
            collect_seen(K - 1, Laps, Total + C)
    end.

ring(Nodes, Laps) ->
    Self = self(),
    Pids = [spawn(fun() -> ring_node(Self, Laps) end) || _ <- lists:seq(1, Nodes)],
    [First | Rest] = Pids,
    [P ! {next, Nx} || {P, Nx} <- lists:zip(Pids, Rest ++ [First])],
    Hops = Nodes * Laps,
    T0 = now_us(),
    First ! {token, Hops - 1},
    Total = collect_seen(Nodes, Laps, 0),
    Us = now_us() - T0,
    Total =:= Hops orelse fail("ring: ~b deliveries, expected ~b", [Total, Hops]),
    {Hops, Us}.

%% skynet: the classic tree of processes, 10 children each, SIZE leaves.
skynet_node(Parent, Num, 1) -> Parent ! {sum, Num};
skynet_node(Parent, Num, Size) ->
    Self = self(),
    Sub = Size div 10,
    [spawn(fun() -> skynet_node(Self, Num + I * Sub, Sub) end) || I <- lists:seq(0, 9)],
    Parent ! {sum, sum_children(10, 0)}.

sum_children(0, Sum) -> Sum;
sum_children(K, Sum) -> receive {sum, V} -> sum_children(K - 1, Sum + V) end.

tree_size(Level, Size, Acc) when Level < Size -> tree_size(Level * 10, Size, Acc + Level);
tree_size(Level, Size, Acc) when Level =:= Size -> Acc + Size;
tree_size(_, Size, _) -> fail("skynet: the size must be a power of 10, got ~b", [Size]).

skynet(Size) ->
    Actors = tree_size(1, Size, 0),
    Self = self(),
    T0 = now_us(),
    spawn(fun() -> skynet_node(Self, 0, Size) end),
    Got = receive {sum, V} -> V end,
    Us = now_us() - T0,
    Got =:= Size * (Size - 1) div 2 orelse fail("skynet: total ~b, expected ~b", [Got, Size * (Size - 1) div 2]),
    {Actors, Us}.

%% spawn: N processes waiting for requests; timed: creating them; then each
%% answers one call, and all stay alive and idle until the program exits.
idle(Id) ->
    receive {call, From, Ref, V} -> From ! {Ref, Id + V}, idle(Id) end.

spawn_loop(I, N, Acc) when I >= N -> Acc;
spawn_loop(I, N, Acc) -> spawn_loop(I + 1, N, [spawn(fun() -> idle(I) end) | Acc]).

spawn_idle(N) ->
    T0 = now_us(),
    Pids = spawn_loop(0, N, []),
    Us = now_us() - T0,
    Sum = lists:foldl(fun(P, S) -> S + call(P, 1) end, 0, Pids),
    Sum =:= N * (N + 1) div 2 orelse fail("spawn: the processes answered ~b in all, expected ~b", [Sum, N * (N + 1) div 2]),
    {N, Us}.

%% pairs: P independent pinger/ponger pairs, N round trips each, at once.
pairs(P, N) ->
    Self = self(),
    T0 = now_us(),
    [spawn(fun() ->
               Pong = spawn(fun ponger/0),
               S = calls(Pong, 0, N, 0),
               Pong ! stop,
               Self ! {pair, S}
           end) || _ <- lists:seq(1, P)],
    [receive {pair, S} ->
         S =:= N * (N + 1) div 2 orelse fail("pairs: a pinger's replies summed to ~b, expected ~b", [S, N * (N + 1) div 2])
     end || _ <- lists:seq(1, P)],
    Us = now_us() - T0,
    {P * N, Us}.
