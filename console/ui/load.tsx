/** Loading a part of a page from the API, again when its inputs change or when the page asks (after a change). */
import { useEffect, useState } from 'preact/hooks';
import { problemOf, type ApiProblem } from './api';

export interface LoadState<T> {
  data?: T;
  problem?: ApiProblem | null;
  loading: boolean;
  reload: () => void;
}

export function useLoad<T>(load: () => Promise<T>, inputs: unknown[]): LoadState<T> {
  const [state, setState] = useState<{ data?: T; problem?: ApiProblem | null; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => current && setState({ data, problem: null, loading: false }),
      (error: unknown) => current && setState({ loading: false, problem: problemOf(error) }),
    );
    return () => {
      current = false;
    };
  }, [...inputs, round]);
  return { ...state, reload: () => setRound((r) => r + 1) };
}
